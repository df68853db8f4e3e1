// The shape every scenario has: a name, the cases it expands to (K=1, K=8 … or one), and a
// `run` that drives one server through one case and fills a CaseRecorder. The runner owns
// the order (case → run → server, so A and B alternate) and everything around it.
import type { MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { performance } from 'node:perf_hooks';
import { AppServerClient, type Json } from '../lib/app-server-client.js';
import type { CaseRecorder } from '../lib/case-result.js';
import type { ServerCommand } from '../lib/server-command.js';
import type { WriterLockBackendKind } from '../../src/main/config/lock-backend-config.js';
import { createHome, removeHome } from '../lib/server-home.js';
import type { WsBenchClient } from '../lib/ws-bench-client.js';
import { WsEndpoint, wsCommandOf } from '../lib/ws-endpoint.js';

/** Every tunable of every scenario, with the defaults (bench-options.ts parses them). */
export interface ScenarioParams {
  /** Waiting acquisitions / threads per lock case. */
  k: number[];
  /** The writer-lock backends the lock scenarios run on, side by side (`--lock-backend`). */
  lockBackends: WriterLockBackendKind[];
  /** The thread stores the turn scenarios run on, side by side (`--thread-store`). */
  threadStores: ThreadStoreKind[];
  /** The database of the postgres cases; null: a throwaway cluster (bench/lib/bench-postgres.ts). */
  postgresUrl: string | null;
  /** takeover: the hosts' fleet_lease_ms, and the takeovers measured per signal. */
  leaseMs: number;
  takeoverRepeats: number;
  /** How long the outside process holds the coordination lock. */
  holdMs: number;
  /** Open-loop `thread/loaded/list` period during a hold. */
  intervalMs: number;
  turns: number;
  warmupTurns: number;
  turnThreads: number;
  /** mcp-threads: threads each calling one tool of the one configured MCP server. */
  mcpThreads: number;
  churnClients: number;
  churnSeconds: number;
  scaleThreads: number;
  /** Wall-clock budget for loading the scale threads; what loaded by then is measured. */
  scaleBudgetS: number;
  scaleReads: number;
  /** How long after unloading every scale thread RSS is read again (has the host given memory back?). */
  scaleSettleS: number;
  /** How many times scale loads and unloads all its threads (memory kept per round vs once). */
  scaleRounds: number;
  /** thread-list: rollouts in the home, and listings after the first. */
  listRollouts: number;
  listRepeats: number;
  /** stored-read: the size its rollout is grown to (MB), and the reads of it. */
  readMb: number;
  readRepeats: number;
  coldRepeats: number;
  /** How long `soak` churns, and how often it samples the server. */
  soakSeconds: number;
  soakSampleS: number;
  /** handoff: server processes on one home, threads they race for, passes over the threads each. */
  processes: number;
  threads: number;
  rounds: number;
  /** handoff: SIGKILL a random server this often (0: never), at most `maxKills` times. */
  killEveryMs: number;
  maxKills: number;
  /** handoff: the history mode threads are started in. */
  historyMode: 'legacy' | 'paginated';
  handoffBudgetS: number;
  /** handoff: keep the temp home even when the run passed. */
  keepHome: boolean;
  /** handoff: judge this kept home again instead of racing (its ledger against fresh reads). */
  verifyHome: string | null;
  /** `fanout`: WebSocket clients, threads, subscriptions per client, turn rounds, probe period. */
  fanoutClients: number;
  fanoutThreads: number;
  fanoutSubscriptions: number;
  fanoutRounds: number;
  /** `fanout`: the measured phase lasts at least this long (rounds continue until then). */
  fanoutSeconds: number;
  fanoutProbeMs: number;
  /** `fanout`: the probe's `limit` (a client pages a long list). */
  fanoutProbeLimit: number;
  /** `fanout`: turns per second, spread over the threads, in the paced case (0: saturated case only). */
  fanoutTurnRate: number;
  /** `fanout`: threads started and left idle before the clients connect (10,000 loaded in all, say). */
  fanoutIdleThreads: number;
  /** `huge-line`: the sizes of the huge turns, one case each, in MB; how many per case. */
  hugeLineMb: number[];
  hugeLines: number;
}

export type ThreadStoreKind = 'files' | 'postgres';

/** What a scenario's `run` gets. */
export interface CaseContext {
  /** The server this case runs against (with --mix, the mix, named `A+B`). */
  server: ServerCommand;
  /** The implementations sharing the home in this case: `[server]`, or A and B with --mix. */
  fleet: readonly ServerCommand[];
  mock: MockModel;
  params: ScenarioParams;
  rec: CaseRecorder;
  /** Reports progress within the case, 0..1, for the progress bar. */
  progress(fraction: number): void;
}

/** One case of a scenario: its id in reports (`K=8`, `fresh`, or '') and its parameters. */
export interface ScenarioCase {
  id: string;
  k: number;
  /** Lock scenarios: the host's writer-lock backend (flock when absent). */
  lockBackend?: WriterLockBackendKind;
  /** Turn scenarios: the host's thread store (files when absent). */
  threadStore?: ThreadStoreKind;
}

export interface Scenario {
  name: string;
  /** One line for `--help` and the docs. */
  summary: string;
  cases(params: ScenarioParams): ScenarioCase[];
  /** Whether the scenario runs several implementations on one home (--mix); one server otherwise. */
  mixes?: true;
  run(ctx: CaseContext, scenarioCase: ScenarioCase): Promise<void>;
}

/** The cases of a scenario with one case per K. */
export function perK(params: ScenarioParams): ScenarioCase[] {
  return params.k.map((k) => ({ id: `K=${k}`, k }));
}

/**
 * One case per K and lock backend, each K's backends side by side. Ids stay `K=8` when only
 * flock runs (the default), so earlier reports still compare; otherwise `K=8 lockfile`.
 */
export function perKAndLockBackend(params: ScenarioParams): ScenarioCase[] {
  const onlyFlock = params.lockBackends.length === 1 && params.lockBackends[0] === 'flock';
  return params.k.flatMap((k) => params.lockBackends.map((lockBackend) => ({ id: onlyFlock ? `K=${k}` : `K=${k} ${lockBackend}`, k, lockBackend })));
}

export const SINGLE_CASE: ScenarioCase[] = [{ id: '', k: 0 }];

/** One case per lock backend; the id stays '' when only flock runs (the default), as before. */
export function perLockBackend(params: ScenarioParams): ScenarioCase[] {
  const onlyFlock = params.lockBackends.length === 1 && params.lockBackends[0] === 'flock';
  return onlyFlock ? SINGLE_CASE : params.lockBackends.map((lockBackend) => ({ id: lockBackend, k: 0, lockBackend }));
}

/**
 * The turn scenarios' cases: the files store's per lock backend (ids as before), then one on
 * PostgreSQL (id `postgres`; writer locks there are the store's own, not the home's).
 */
export function perLockBackendAndStore(params: ScenarioParams): ScenarioCase[] {
  const files = params.threadStores.includes('files') ? perLockBackend(params) : [];
  const postgres: ScenarioCase[] = params.threadStores.includes('postgres') ? [{ id: 'postgres', k: 0, threadStore: 'postgres' }] : [];
  return [...files, ...postgres];
}

/**
 * Runs `body` against a fresh server in a fresh home, and always stops the server and removes
 * the home (killing anything it left running). The server's exit code is checked: a server
 * that cannot stop cleanly after the scenario fails it.
 */
export async function withServer<T>(
  ctx: CaseContext,
  options: { rootConfig?: string; env?: Record<string, string>; afterExit?: (home: string) => void },
  body: (client: AppServerClient, home: string) => Promise<T>,
): Promise<T> {
  const home = createHome(ctx.mock.url, options.rootConfig ?? '');
  const server = options.env ? { ...ctx.server, env: { ...ctx.server.env, ...options.env } } : ctx.server;
  let client: AppServerClient | undefined;
  try {
    client = await AppServerClient.start(server, home);
    ctx.rec.userAgent(client.userAgent);
    const result = await body(client, home);
    const { code, signal } = await client.close();
    ctx.rec.check(code === 0, `server exit ${code ?? signal} after stdin EOF`);
    options.afterExit?.(home);
    return result;
  } finally {
    await client?.close();
    removeHome(home);
  }
}

/** The server command as a WebSocket server (wsCommandOf); null, with the case failed, when it cannot be one. */
export function wsCommandOrFail(ctx: CaseContext, scenario: string): ServerCommand | null {
  const command = wsCommandOf(ctx.server);
  if (command === null) ctx.rec.fail(`${scenario} needs a WebSocket server command with {port} (e.g. "… app-server --listen ws://127.0.0.1:{port}")`);
  return command;
}

/**
 * Runs `body` against `command` (a WebSocket server, see wsCommandOf) serving `home`: the
 * clients the body opens go in `clients`, and are closed before the server is stopped with
 * SIGTERM, which must end it cleanly. The home is removed either way.
 */
export async function withWsEndpoint(
  ctx: CaseContext,
  command: ServerCommand,
  home: string,
  body: (endpoint: WsEndpoint, clients: WsBenchClient[]) => Promise<void>,
): Promise<void> {
  let endpoint: WsEndpoint | null = null;
  const clients: WsBenchClient[] = [];
  try {
    endpoint = await WsEndpoint.start(command, home);
    await body(endpoint, clients);
    for (const client of clients) client.close();
    const { code, signal } = await endpoint.stop();
    ctx.rec.check(code === 0, `server exit ${code ?? signal} after SIGTERM`);
  } finally {
    for (const client of clients) client.close();
    await endpoint?.stop();
    removeHome(home);
  }
}

export const textInput = (text: string) => [{ type: 'text', text, text_elements: [] }];

/** Starts a thread (with `startParams`), runs one turn to completion, returns the thread id. */
export async function threadWithOneTurn(client: Pick<AppServerClient, 'request' | 'waitFor'>, text: string, startParams: Record<string, unknown> = {}): Promise<string> {
  const { thread } = await client.request('thread/start', startParams);
  const completed = client.waitFor('turn/completed', thread.id);
  await client.request('turn/start', { threadId: thread.id, input: textInput(text) });
  await completed;
  return thread.id as string;
}

/** The first line of an error, for failure lists. */
export const firstLine = (error: unknown): string => String(error instanceof Error ? error.message : error).split('\n')[0]!.slice(0, 200);

/** How one timed request ended: its result, or the first line of its error; `at` either way. */
export interface Outcome {
  result: Json | null;
  error: string | null;
  at: number;
}

/** Never rejects, so a batch of requests can be awaited with Promise.all and counted. */
export function outcome(request: Promise<{ result: Json; at: number }>): Promise<Outcome> {
  return request.then(
    ({ result, at }) => ({ result, error: null, at }),
    (error: unknown) => ({ result: null, error: firstLine(error), at: performance.now() }),
  );
}

/** Distinct error texts of a batch, for the failure list. */
export function errorsOf(outcomes: readonly Outcome[]): string[] {
  return [...new Set(outcomes.flatMap((o) => (o.error === null ? [] : [o.error])))];
}
