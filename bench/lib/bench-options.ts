// The `thread-host bench` command line, parsed once with node:util parseArgs into a plan:
// which scenarios, which servers (A, then B with --compare), how many runs, where the report
// goes, and every scenario parameter with the defaults.
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ScenarioParams, ThreadStoreKind } from '../scenarios/scenario.js';
import { REPO_ROOT } from './repo-paths.js';
import { defaultServerCommand, distinctNames, parseServerCommand, type ServerCommand } from './server-command.js';
import type { WriterLockBackendKind } from '../../src/main/config/lock-backend-config.js';

/** What the command will do. */
export interface BenchPlan {
  scenarioNames: string[];
  servers: ServerCommand[];
  runs: number;
  outDir: string;
  /** Hard wall-clock limit for the whole invocation; every child is killed when it passes. */
  deadlineMs: number;
  params: ScenarioParams;
  /** --mix: A and B processes share one home in one case (handoff), instead of a case each. */
  mix: boolean;
  help: boolean;
}

/** A bad command line: the message goes to stderr with exit code 2. */
export class BenchUsageError extends Error {}

export const BENCH_USAGE = `Usage: thread-host bench [scenario…] [options]

Drives an app-server over stdio through contention scenarios, each server in a fresh temp home
with its own mock model on loopback, and writes results.json, report.html and table.md.

Scenarios (default: all): seed, idle-unload, probe-floor, locked-unload, resume-under-lock,
  start-under-lock, churn, turn-sequential, turn-concurrent, cold-start, full-host, scale;
  groups: under-lock, turns, all;
  soak (10 minutes), handoff (several servers on one home, or hosts on one database),
  thread-list (thousands of rollouts),
  takeover (PostgreSQL store: a host SIGKILLed or SIGSTOPped, another takes its thread over),
  forwarding (PostgreSQL store: turns from a client of the owner and of another host),
  and fanout, huge-line and stored-read (WebSocket: a command with {port}, a free port
  substituted; this host's default command is switched to ws://127.0.0.1:{port}) run only
  when named

Options:
  --server-cmd <cmd>     Server A: a JSON argv array or a shell-like string (default: this host)
  --compare <cmd>        Server B, run interleaved with A (A B A B per run); ratios A/B are printed
  --mix                  handoff only: A and B processes on one home in one case (A B A B)
  --runs <n>             Repetitions of every case (default 1)
  --out <dir>            Report folder (default bench/out/<timestamp>)
  --k <list>             K for the lock scenarios (default 1,8,32)
  --hold-ms <ms>         How long the outside process holds the lock, and probe-floor probes (default 2000)
  --lock-backend <b>     flock, lockfile or both: the writer-lock backend(s) of the lock scenarios
                         (locked-unload, resume-under-lock, start-under-lock), side by side per K,
                         and of turn-sequential and turn-concurrent, side by side
                         (default flock; lockfile cases configure thread-host only)
  --thread-store <s>     files, postgres or both: the thread store of turn-sequential,
                         turn-concurrent, handoff and thread-list, side by side (default files); takeover,
                         forwarding and fanout's 3-host cases run on postgres
  --postgres-url <url>   The database of the postgres cases (default: a throwaway cluster the
                         bench starts, initdb in a temporary folder, a database per case)
  --lease-ms <ms>        takeover and handoff on postgres: the hosts' fleet_lease_ms (default 2000)
  --takeover-repeats <n> takeover: takeovers measured per signal (default 5)
  --interval-ms <ms>     Open-loop thread/loaded/list period (default 15)
  --turns <n>            Measured sequential turns, and forwarding's of each kind (default 50;
                         --warmup 5 before them)
  --turn-threads <n>     Concurrent one-message turns (default 32)
  --mcp-threads <n>      mcp-threads: threads each calling one tool of one configured MCP server (default 100)
  --churn-clients <n>    Concurrent churn clients (default 8)
  --churn-s <s>          Churn duration (default 10)
  --scale-threads <n>    Threads loaded by scale (default 10000)
  --scale-budget-s <s>   Time allowed to load them (default 600)
  --scale-reads <n>      thread/read requests in scale (default 500)
  --scale-settle-s <s>   How long scale waits after unloading all before reading RSS again (default 30)
  --list-rollouts <n>    thread-list: rollouts in the home (default 5000)
  --list-repeats <n>     thread-list: listings after the first (default 10)
  --read-mb <n>          stored-read: MB its unloaded thread's rollout is grown to (default 20)
  --read-repeats <n>     stored-read: thread/read and thread/turns/list requests, each (default 5)
  --scale-rounds <n>     scale: load and unload all N this many times, settling after each (default 1)
  --cold-repeats <n>     Starts per cold-start run (default 10)
  --soak-s <s>           Soak duration (default 600)
  --soak-sample-s <s>    Soak sampling period (default 10)
  --processes <n>        handoff: server processes sharing the home, or hosts the database (default 4)
  --threads <n>          handoff: threads they race for (default 8)
  --rounds <n>           handoff: passes over every thread per process (default 25)
  --kill-every <s>       handoff: SIGKILL a random server every <s> seconds, start another (default off)
  --max-kills <n>        handoff: stop killing after <n> kills (default no limit)
  --history-mode <mode>  handoff: threads start in 'paginated' (default, as the reference) or 'legacy' history
  --handoff-budget-s <s> handoff: time allowed for the race (default 600)
  --keep-home            handoff: keep the temp home (with handoff-ledger.json) even when it passed
  --verify-home <dir>    handoff: no race; judge a kept home (or a copy with planted faults) again
  --clients <n>          fanout: WebSocket clients on one server (default 200)
  --fanout-threads <n>   fanout: threads turns stream on (default 20)
  --subscriptions <n>    fanout: threads each client subscribes to (default 3)
  --fanout-rounds <n>    fanout: rounds of one turn on every thread, at least (default 5)
  --fanout-s <s>         fanout: the measured phase lasts at least this long (default 10)
  --probe-ms <ms>        fanout: each client's open-loop thread/loaded/list period (default 100)
  --probe-limit <n>      fanout: the probe's page size, thread/loaded/list limit (default 100)
  --turn-rate <n>        fanout: turns per second in the paced case, open loop (default 20; 0: no paced case)
  --idle-threads <n>     fanout: extra threads started and left idle, so the server holds T + n loaded (default 0)
  --huge-mb <list>       huge-line: MB of text per huge turn/start, one case each (default 5,10)
  --huge-lines <n>       huge-line: huge turns sent per case, one after another (default 10)
  --deadline-s <s>       Hard limit for the whole bench (default 7200)
  -h, --help             Show this help`;

const OPTIONS = {
  'server-cmd': { type: 'string' },
  compare: { type: 'string' },
  runs: { type: 'string' },
  out: { type: 'string' },
  k: { type: 'string' },
  'hold-ms': { type: 'string' },
  'lock-backend': { type: 'string' },
  'thread-store': { type: 'string' },
  'postgres-url': { type: 'string' },
  'lease-ms': { type: 'string' },
  'takeover-repeats': { type: 'string' },
  'interval-ms': { type: 'string' },
  turns: { type: 'string' },
  warmup: { type: 'string' },
  'turn-threads': { type: 'string' },
  'mcp-threads': { type: 'string' },
  'churn-clients': { type: 'string' },
  'churn-s': { type: 'string' },
  'scale-threads': { type: 'string' },
  'scale-budget-s': { type: 'string' },
  'scale-reads': { type: 'string' },
  'scale-settle-s': { type: 'string' },
  'scale-rounds': { type: 'string' },
  'list-rollouts': { type: 'string' },
  'read-mb': { type: 'string' },
  'read-repeats': { type: 'string' },
  'list-repeats': { type: 'string' },
  'cold-repeats': { type: 'string' },
  'soak-s': { type: 'string' },
  'soak-sample-s': { type: 'string' },
  processes: { type: 'string' },
  threads: { type: 'string' },
  rounds: { type: 'string' },
  'kill-every': { type: 'string' },
  'max-kills': { type: 'string' },
  'history-mode': { type: 'string' },
  'handoff-budget-s': { type: 'string' },
  mix: { type: 'boolean' },
  'keep-home': { type: 'boolean' },
  'verify-home': { type: 'string' },
  clients: { type: 'string' },
  'fanout-threads': { type: 'string' },
  subscriptions: { type: 'string' },
  'fanout-rounds': { type: 'string' },
  'fanout-s': { type: 'string' },
  'probe-ms': { type: 'string' },
  'probe-limit': { type: 'string' },
  'turn-rate': { type: 'string' },
  'idle-threads': { type: 'string' },
  'huge-mb': { type: 'string' },
  'huge-lines': { type: 'string' },
  'deadline-s': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parseBenchOptions(argv: string[], now = new Date()): BenchPlan {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true, tokens: true });
  } catch (error) {
    throw new BenchUsageError((error as Error).message.split('. ')[0]!);
  }
  // parseArgs keeps the last of a value given twice; a second --compare would silently replace
  // the first server B.
  const given = parsed.tokens.flatMap((token) => (token.kind === 'option' && token.value !== undefined ? [token.name] : []));
  const twice = given.find((name, i) => given.indexOf(name) !== i);
  if (twice !== undefined) throw new BenchUsageError(`--${twice} was given more than once; it takes one value`);
  const { values, positionals } = parsed;
  const count = (name: keyof typeof OPTIONS, fallback: number): number => positiveInt(values[name], name, fallback);
  let servers: ServerCommand[];
  try {
    const primary = values['server-cmd'] === undefined ? defaultServerCommand() : parseServerCommand(values['server-cmd']);
    servers = distinctNames(values.compare === undefined ? [primary] : [primary, parseServerCommand(values.compare)]);
  } catch (error) {
    throw new BenchUsageError((error as Error).message);
  }
  if (values.mix === true && servers.length !== 2) throw new BenchUsageError('--mix needs --compare: it mixes server A and server B on one home');
  const historyMode = values['history-mode'] ?? 'paginated';
  if (historyMode !== 'legacy' && historyMode !== 'paginated') throw new BenchUsageError(`--history-mode: expected legacy or paginated, got '${historyMode}'`);
  const stamp = now.toISOString().replace(/[:.]/g, '-').slice(0, 19);
  return {
    scenarioNames: positionals,
    servers,
    runs: count('runs', 1),
    outDir: values.out ?? join(REPO_ROOT, 'bench', 'out', stamp),
    deadlineMs: count('deadline-s', 7_200) * 1000,
    mix: values.mix === true,
    help: values.help === true,
    params: {
      k: (values.k ?? '1,8,32').split(',').map((k) => positiveInt(k.trim(), 'k', 1)),
      lockBackends: lockBackends(values['lock-backend']),
      threadStores: threadStores(values['thread-store']),
      postgresUrl: values['postgres-url'] ?? null,
      leaseMs: count('lease-ms', 2_000),
      takeoverRepeats: count('takeover-repeats', 5),
      holdMs: count('hold-ms', 2_000),
      intervalMs: count('interval-ms', 15),
      turns: count('turns', 50),
      warmupTurns: nonNegativeInt(values.warmup, 'warmup', 5),
      turnThreads: count('turn-threads', 32),
      mcpThreads: count('mcp-threads', 100),
      churnClients: count('churn-clients', 8),
      churnSeconds: count('churn-s', 10),
      scaleThreads: count('scale-threads', 10_000),
      scaleBudgetS: count('scale-budget-s', 600),
      scaleReads: count('scale-reads', 500),
      scaleSettleS: nonNegativeInt(values['scale-settle-s'], 'scale-settle-s', 30),
      scaleRounds: count('scale-rounds', 1),
      listRollouts: count('list-rollouts', 5_000),
      listRepeats: count('list-repeats', 10),
      readMb: count('read-mb', 20),
      readRepeats: count('read-repeats', 5),
      coldRepeats: count('cold-repeats', 10),
      soakSeconds: count('soak-s', 600),
      soakSampleS: count('soak-sample-s', 10),
      processes: count('processes', 4),
      threads: count('threads', 8),
      rounds: count('rounds', 25),
      killEveryMs: values['kill-every'] === undefined ? 0 : positiveSeconds(values['kill-every'], 'kill-every') * 1000,
      maxKills: count('max-kills', Number.MAX_SAFE_INTEGER),
      historyMode,
      handoffBudgetS: count('handoff-budget-s', 600),
      keepHome: values['keep-home'] === true,
      verifyHome: values['verify-home'] === undefined ? null : resolve(values['verify-home']),
      fanoutClients: count('clients', 200),
      fanoutThreads: count('fanout-threads', 20),
      fanoutSubscriptions: count('subscriptions', 3),
      fanoutRounds: count('fanout-rounds', 5),
      fanoutSeconds: count('fanout-s', 10),
      fanoutProbeMs: count('probe-ms', 100),
      fanoutProbeLimit: count('probe-limit', 100),
      fanoutTurnRate: nonNegativeInt(values['turn-rate'], 'turn-rate', 20),
      fanoutIdleThreads: nonNegativeInt(values['idle-threads'], 'idle-threads', 0),
      hugeLineMb: (values['huge-mb'] ?? '5,10').split(',').map((mb) => positiveInt(mb.trim(), 'huge-mb', 5)),
      hugeLines: count('huge-lines', 10),
    },
  };
}

/** `--lock-backend`: one backend, or `both` (flock first, so each K reads flock then lockfile). */
function lockBackends(value: string | undefined): WriterLockBackendKind[] {
  if (value === undefined || value === 'flock') return ['flock'];
  if (value === 'lockfile') return ['lockfile'];
  if (value === 'both') return ['flock', 'lockfile'];
  throw new BenchUsageError(`--lock-backend: expected flock, lockfile or both, got '${value}'`);
}

/** `--thread-store`: one store, or `both` (files first, so each turn scenario reads files then postgres). */
function threadStores(value: string | undefined): ThreadStoreKind[] {
  if (value === undefined || value === 'files') return ['files'];
  if (value === 'postgres') return ['postgres'];
  if (value === 'both') return ['files', 'postgres'];
  throw new BenchUsageError(`--thread-store: expected files, postgres or both, got '${value}'`);
}

/** A positive integer flag, or `fallback` when absent. */
export function positiveInt(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new BenchUsageError(`--${name}: expected a positive integer, got '${String(value)}'`);
  return n;
}

/** A positive number of seconds, fractions allowed (`--kill-every 0.5`). */
function positiveSeconds(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new BenchUsageError(`--${name}: expected a positive number of seconds, got '${value}'`);
  return n;
}

function nonNegativeInt(value: unknown, name: string, fallback: number): number {
  return value === '0' ? 0 : positiveInt(value, name, fallback);
}
