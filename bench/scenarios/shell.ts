// The command tool's latency: the mock model answers a turn's request with a function call of
// `exec_command` (`echo hi`), then with a message once it has the output. Measured on the
// bench's clock from the spawn mark, the mock's receipt of the request the call answered (the
// call leaves right after, as in tools.ts; earlier than item/started, so the host's own work
// before the spawn counts), to the arrival of the commandExecution's item/started, its first
// item/commandExecution/outputDelta and its item/completed. Cases, each with approval policy
// never: sandboxed (`workspace-write`) and not (`danger-full-access`), one turn after another;
// then `turnThreads` threads running one command each at once (the makespan).
//
// The servers get a TMPDIR of their own outside the home: the reference refuses to create its
// sandbox helper under the temp dir, and a CODEX_HOME under /tmp with TMPDIR unset is, so every
// sandboxed command of its would fail (docs/BENCHMARKS.md, `shell`). A first, unmeasured turn
// per case runs `readlink /proc/self/ns/net`: a sandboxed command must see a network namespace
// of its own, an unsandboxed one the bench's, so a case cannot pass while not sandboxing.
import { mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { functionCallItem, messageItem, type MockRequest } from '../../src/main/commands/mock-model/mock-model-server.js';
import type { AppServerClient, Arrival, Json } from '../lib/app-server-client.js';
import { LatencyHistogram } from '../lib/histogram.js';
import { textInput, withServer, type CaseContext, type Scenario, type ScenarioCase } from './scenario.js';

const TURN_DEADLINE_MS = 30_000;
const COMMAND = 'echo hi';
const SANDBOXES = ['workspace-write', 'danger-full-access'] as const;
type Sandbox = (typeof SANDBOXES)[number];

export const shell: Scenario = {
  name: 'shell',
  summary: 'exec_command `echo hi` per turn, sandboxed and not: call → item/started, first outputDelta, item/completed; N threads at once',
  cases: (params) => [
    ...SANDBOXES.map((sandbox) => ({ id: sandbox, k: 0 })),
    ...SANDBOXES.map((sandbox) => ({ id: `K=${params.turnThreads} ${sandbox}`, k: params.turnThreads })),
  ],
  async run(ctx, scenarioCase) {
    const sandbox = SANDBOXES.find((mode) => scenarioCase.id.endsWith(mode))!;
    const serverTmp = mkdtempSync(join(tmpdir(), 'thread-host-bench-tmpdir-'));
    try {
      await withServer(ctx, { env: { TMPDIR: serverTmp } }, async (client) => {
        const startParams = { approvalPolicy: 'never', sandbox };
        await checkSandboxed(ctx, client, startParams, sandbox);
        if (scenarioCase.k === 0) await sequential(ctx, client, startParams);
        else await concurrent(ctx, client, startParams, scenarioCase);
      });
    } finally {
      rmSync(serverTmp, { recursive: true, force: true });
    }
  },
};

/** The next notification `method` of `threadId` whose item is a commandExecution. */
async function commandNotice(client: AppServerClient, method: string, threadId: string): Promise<Arrival> {
  for (;;) {
    const arrival = await client.waitFor(method, threadId, TURN_DEADLINE_MS);
    if (arrival.params.item?.type === 'commandExecution') return arrival;
  }
}

/** The last line a command printed (a login shell may print warnings before it). */
const lastLine = (item: Json): string => String(item.aggregatedOutput ?? '').trimEnd().split('\n').pop() ?? '';

/** One unmeasured turn that shows whether the command ran in a network namespace of its own. */
async function checkSandboxed(ctx: CaseContext, client: AppServerClient, startParams: Json, sandbox: Sandbox): Promise<void> {
  const { thread } = await client.request('thread/start', startParams);
  ctx.mock.enqueue({ kind: 'output', items: [functionCallItem('call_ns', 'exec_command', { cmd: 'readlink /proc/self/ns/net' })] });
  ctx.mock.enqueue({ kind: 'output', items: [messageItem('msg_ns', 'Done')] });
  const completed = commandNotice(client, 'item/completed', thread.id);
  const turnDone = client.waitFor('turn/completed', thread.id, TURN_DEADLINE_MS);
  await client.request('turn/start', { threadId: thread.id, input: textInput('which network namespace?') }, TURN_DEADLINE_MS);
  const { item } = (await completed).params;
  await turnDone;
  const own = lastLine(item) !== readlinkSync('/proc/self/ns/net');
  const ran = item.status === 'completed' && lastLine(item).startsWith('net:');
  ctx.rec.figure('command in a network namespace of its own', own && ran ? 1 : 0, 'count', 'higher');
  ctx.rec.check(ran, `the namespace probe did not run: ${item.status} ${JSON.stringify(String(item.aggregatedOutput ?? '').slice(-200))}`);
  ctx.rec.check(!ran || own === (sandbox !== 'danger-full-access'), `${sandbox}: the command ran ${own ? 'in' : 'outside'} a network namespace of its own`);
}

/** One thread, one command per turn, after `warmupTurns` unmeasured ones. */
async function sequential(ctx: CaseContext, client: AppServerClient, startParams: Json): Promise<void> {
  const { rec, params, mock } = ctx;
  const { thread } = await client.request('thread/start', startParams);
  const toStarted = new LatencyHistogram();
  const toDelta = new LatencyHistogram();
  const toCompleted = new LatencyHistogram();
  const failures = new Set<string>();
  let noDelta = 0;
  const total = params.warmupTurns + params.turns;
  for (let i = 0; i < total; i += 1) {
    mock.enqueue({ kind: 'output', items: [functionCallItem(`call_${i}`, 'exec_command', { cmd: COMMAND })] });
    mock.enqueue({ kind: 'output', items: [messageItem(`msg_${i}`, 'Done')] });
    client.clearBuffer(); // the last turn's notifications nobody claimed (its agent message)
    const started = commandNotice(client, 'item/started', thread.id);
    const completed = commandNotice(client, 'item/completed', thread.id);
    const turnDone = client.waitFor('turn/completed', thread.id, TURN_DEADLINE_MS);
    const first = mock.requests.length;
    await client.request('turn/start', { threadId: thread.id, input: textInput(`turn ${i}`) }, TURN_DEADLINE_MS);
    const [s, c, t] = await Promise.all([started, completed, turnDone]);
    // Deltas come before the item's completion, so the first is in the buffer by now, with its
    // arrival time; a wait for one that never comes would take the next turn's.
    const delta = client.tryTake('item/commandExecution/outputDelta', thread.id);
    const failure = commandFailure(c.params.item, t.params, mock.requests.length - first);
    if (failure !== null) failures.add(failure);
    else if (i >= params.warmupTurns) {
      const calledAt = mock.requests[first]!.receivedAt;
      toStarted.recordMs(s.at - calledAt);
      if (delta === undefined) noDelta += 1;
      else toDelta.recordMs(delta.at - calledAt);
      toCompleted.recordMs(c.at - calledAt);
    }
    ctx.progress((i + 1) / total);
  }
  rec.latency('call → item/started', toStarted);
  // None at all reads n/a beside the other server, not 0 ms.
  if (toDelta.summary().count > 0) rec.latency('call → first outputDelta', toDelta);
  rec.latency('call → item/completed', toCompleted);
  rec.figure('commands with no outputDelta', noDelta, 'count');
  rec.figure('turns failed', total - params.warmupTurns - toCompleted.summary().count, 'count');
  rec.check(failures.size === 0, `commands failed: ${[...failures].join('; ')}`);
}

/** Why a turn's command did not do what `echo hi` does, or null. */
function commandFailure(item: Json, turnCompleted: Json, modelRequests: number): string | null {
  if (item.status !== 'completed' || item.exitCode !== 0 || lastLine(item) !== 'hi') return `${item.status} exit ${item.exitCode}: ${JSON.stringify(String(item.aggregatedOutput ?? '').slice(-200))}`;
  if (turnCompleted.turn?.status !== 'completed') return `turn ${turnCompleted.turn?.status}`;
  if (modelRequests !== 2) return `${modelRequests} model requests in the turn`;
  return null;
}

/** The input's last item is the command's output: the turn's second request. */
const answersOutput = (request: MockRequest): boolean => {
  const input = (request.body as { input?: Json[] } | null)?.input ?? [];
  return input[input.length - 1]?.type === 'function_call_output';
};

/** `scenarioCase.k` threads, one command each, every turn/start written at once. */
async function concurrent(ctx: CaseContext, client: AppServerClient, startParams: Json, scenarioCase: ScenarioCase): Promise<void> {
  const { rec, mock } = ctx;
  const threads = await Promise.all(Array.from({ length: scenarioCase.k }, async () => (await client.request('thread/start', startParams)).thread.id as string));
  // The turns' requests interleave, so each reply is chosen by what it answers, not queued.
  let calls = 0;
  mock.setResponder((request) => answersOutput(request)
    ? { kind: 'output', items: [messageItem(`msg_${calls}`, 'Done')] }
    : { kind: 'output', items: [functionCallItem(`call_${(calls += 1)}`, 'exec_command', { cmd: COMMAND })] });
  try {
    client.clearBuffer();
    const commands = threads.map((threadId) => commandNotice(client, 'item/completed', threadId));
    const turns = threads.map((threadId) => client.waitFor('turn/completed', threadId, TURN_DEADLINE_MS));
    const first = mock.requests.length;
    const startedAt = performance.now();
    await Promise.all(threads.map((threadId, i) => client.request('turn/start', { threadId, input: textInput(`concurrent ${i}`) }, TURN_DEADLINE_MS)));
    const [done, turnDone] = await Promise.all([Promise.all(commands), Promise.all(turns)]);
    const failures = new Set(done.flatMap((c, i) => {
      const failure = commandFailure(c.params.item, turnDone[i]!.params, 2);
      return failure === null ? [] : [failure];
    }));
    const latency = new LatencyHistogram();
    for (const c of done) latency.recordMs(c.at - startedAt);
    rec.figure('makespan', Math.max(...turnDone.map((t) => t.at)) - startedAt, 'ms');
    rec.figure('commands makespan', Math.max(...done.map((c) => c.at)) - startedAt, 'ms');
    rec.latency('first turn/start sent → item/completed', latency);
    rec.figure('model requests', mock.requests.length - first, 'count');
    rec.check(failures.size === 0, `commands failed: ${[...failures].join('; ')}`);
    rec.check(mock.requests.length - first === 2 * threads.length, `${mock.requests.length - first} model requests for ${threads.length} one-command turns`);
  } finally {
    mock.setResponder(null);
  }
}
