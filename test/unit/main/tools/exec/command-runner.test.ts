// The runner's supervision with real processes: deadline, interrupt, the concurrency limit,
// and a flood of output. Exit codes and texts are the reference's (core/src/exec.rs).
import { expect, test } from 'vitest';
import { CommandRunner, type CommandRequest, type CommandResult } from '../../../../../src/main/tools/exec/command-runner.js';
import { EXEC_OUTPUT_MAX_BYTES } from '../../../../../src/main/tools/exec/output-capture.js';
import { liveGroupCount } from '../../../../../src/main/tools/exec/process-groups.js';

const FULL_ACCESS = { type: 'danger-full-access' } as const;
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const sh = (script: string, extra: Partial<CommandRequest> = {}): CommandRequest => ({ argv: ['sh', '-c', script], cwd: '/', env, policy: FULL_ACCESS, ...extra });

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function finished(runner: CommandRunner, request: CommandRequest): Promise<CommandResult> {
  const result = await runner.run(request);
  if (result.kind !== 'finished') throw new Error(`refused: ${result.message}`);
  return result;
}

test('a command that exits is reported with its code, its streams and the model text', async () => {
  const result = await finished(new CommandRunner(), sh('echo out; echo err >&2; exit 3'));
  expect(result).toMatchObject({ ending: 'exited', exitCode: 3, timedOut: false, sandboxed: false, stdout: 'out\n', stderr: 'err\n', aggregatedOutput: 'out\nerr\n', stdoutBytes: 4, stderrBytes: 4 });
  expect(result.modelText).toBe(`Exit code: 3\nWall time: ${Math.round(result.durationMs / 100) / 10} seconds\nOutput:\nout\nerr\n`);
});

test('only the given environment reaches the command', async () => {
  const result = await finished(new CommandRunner(), { argv: ['/usr/bin/env'], cwd: '/', env: { ONLY: 'this' }, policy: FULL_ACCESS });
  expect(result.stdout).toBe('ONLY=this\n');
});

test('the deadline kills the whole process group, background children included, and reports 124', async () => {
  const result = await finished(new CommandRunner(), sh('sleep 100 & echo $$ $!; wait', { timeoutMs: 300 }));
  const [pgid, sleepPid] = result.stdout.trim().split(' ').map(Number) as [number, number];
  expect(result).toMatchObject({ ending: 'timedOut', exitCode: 124, timedOut: true });
  expect(result.durationMs).toBeGreaterThanOrEqual(300);
  expect(() => process.kill(-pgid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  expect(gone(sleepPid)).toBe(true);
  expect(result.modelText).toBe(
    `Exit code: 124\nWall time: ${Math.round(result.durationMs / 100) / 10} seconds\nOutput:\n` +
      `command timed out after ${Math.floor(result.durationMs)} milliseconds\n${pgid} ${sleepPid}\n`,
  );
  expect(liveGroupCount()).toBe(0);
});

test('a leader that exits takes the children it left in its group with it', async () => {
  const result = await finished(new CommandRunner(), sh('sleep 100 & echo $$ $!'));
  const [pgid, sleepPid] = result.stdout.trim().split(' ').map(Number) as [number, number];
  expect(result).toMatchObject({ ending: 'exited', exitCode: 0 });
  expect(() => process.kill(-pgid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  expect(gone(sleepPid)).toBe(true);
});

test('an interrupt sends SIGTERM, then SIGKILL after the grace, and reports exit code 1', async () => {
  const runner = new CommandRunner({ killGraceMs: 200 });
  const controller = new AbortController();
  // SIGTERM is ignored (and so by sleep too): only the SIGKILL after the grace ends it.
  const started = performance.now();
  const result = await finished(runner, sh('trap "" TERM; echo ready; sleep 100', {
    signal: controller.signal,
    onOutput: (_stream, chunk) => chunk.toString().includes('ready') && controller.abort(),
  }));
  expect(result).toMatchObject({ ending: 'interrupted', exitCode: 1, timedOut: false, stdout: 'ready\n' });
  expect(performance.now() - started).toBeGreaterThanOrEqual(200);
  const plain = new AbortController();
  setTimeout(() => plain.abort(), 50);
  expect(await finished(runner, sh('sleep 100', { signal: plain.signal }))).toMatchObject({ ending: 'interrupted', exitCode: 1 });
});

test('a signal from elsewhere is 128 + its number', async () => {
  expect(await finished(new CommandRunner(), sh('kill -USR1 $$'))).toMatchObject({ ending: 'signaled', exitCode: 138 });
});

test('past the limit, commands wait for a slot, and give up at the queue deadline or on interrupt', async () => {
  const runner = new CommandRunner({ maxConcurrent: 2, queueTimeoutMs: 5_000 });
  const runs = [1, 2, 3].map((n) => runner.run(sh(`sleep 0.2; echo ${n}`)));
  await new Promise((resolve) => setImmediate(resolve));
  expect(runner.load).toEqual({ running: 2, queued: 1 });
  const results = await Promise.all(runs);
  expect(results.map((result) => result.kind === 'finished' && result.stdout)).toEqual(['1\n', '2\n', '3\n']);
  expect(runner.load).toEqual({ running: 0, queued: 0 });

  const tight = new CommandRunner({ maxConcurrent: 1, queueTimeoutMs: 100 });
  const holder = tight.run(sh('sleep 0.5'));
  const controller = new AbortController();
  const interrupted = tight.run(sh('echo never', { signal: controller.signal }));
  expect(await tight.run(sh('echo never'))).toEqual({ kind: 'refused', reason: 'queueTimedOut', message: 'no command slot became free within 100 ms' });
  controller.abort();
  expect(await interrupted).toMatchObject({ kind: 'refused', reason: 'queueTimedOut' });
  const late = new AbortController();
  const abortedWhileQueued = tight.run(sh('echo never', { signal: late.signal }));
  late.abort();
  expect(await abortedWhileQueued).toEqual({ kind: 'refused', reason: 'interrupted', message: 'the command was interrupted before it started' });
  expect(await holder).toMatchObject({ kind: 'finished', exitCode: 0 });
});

test('killAll ends every running command and refuses new ones', async () => {
  const runner = new CommandRunner();
  const runs = [runner.run(sh('sleep 100')), runner.run(sh('sleep 100 & wait'))];
  await new Promise((resolve) => setTimeout(resolve, 50));
  await runner.killAll();
  expect((await Promise.all(runs)).map((result) => result.kind === 'finished' && result.ending)).toEqual(['interrupted', 'interrupted']);
  expect(await runner.run(sh('true'))).toEqual({ kind: 'refused', reason: 'runnerClosed', message: 'the command runner is shut down' });
});

test('a flood of output is capped at 1 MiB, streamed at most 10,000 times, and ended by the deadline', async () => {
  let deltas = 0;
  let worstLagMs = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    worstLagMs = Math.max(worstLagMs, now - last - 20);
    last = now;
  }, 20);
  const result = await finished(new CommandRunner(), { argv: ['yes'], cwd: '/', env, policy: FULL_ACCESS, timeoutMs: 1_500, onOutput: () => (deltas += 1) });
  clearInterval(ticker);
  expect(result).toMatchObject({ ending: 'timedOut', exitCode: 124, timedOut: true, stderrBytes: 0 });
  expect(result.stdout.length).toBe(EXEC_OUTPUT_MAX_BYTES);
  expect(result.aggregatedOutput).toBe('y\n'.repeat(EXEC_OUTPUT_MAX_BYTES / 2));
  expect(result.stdoutBytes).toBeGreaterThan(10 * EXEC_OUTPUT_MAX_BYTES);
  expect(deltas).toBeLessThanOrEqual(10_000);
  // The host kept serving its event loop while reading the flood.
  expect(worstLagMs).toBeLessThan(250);
  const head = `Exit code: 124\nWall time: ${Math.round(result.durationMs / 100) / 10} seconds\nTotal output lines: ${EXEC_OUTPUT_MAX_BYTES / 2 + 1}\nOutput:\n`;
  expect(result.modelText.startsWith(`${head}command timed out after ${Math.floor(result.durationMs)} milliseconds\ny\n`)).toBe(true);
  expect(result.modelText).toContain('chars truncated…');
});
