// Opt-in (`npm run test:interop`): one command/exec script run against the real reference,
// codex-cli 0.171.0, and against thread-host: commands on a terminal (`tty: true`) with and
// without a size, written to, sent Ctrl-C and Ctrl-D, closed, resized (seen by a WINCH trap),
// terminated, timed out and capped, unsandboxed and under readOnly and workspaceWrite; the
// param and follow-up errors, strict base64, and programs that cannot be spawned. Compared
// field by field: every reply or error, and each command's deltas as the text they carry, the
// streams they name and where capReached is set. What is normalised: the side's own directory,
// the PATH the reference prepends its helpers to, and how the reads split the output (the
// kernel decides that, on either side).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { referenceAndMock } from './reference-and-mock.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

type Side = 'thread-host' | 'codex';
const reference = referenceAndMock();
const b64 = (text: string) => Buffer.from(text).toString('base64');
const bash = (script: string) => ['bash', '-c', script];
const FULL = { type: 'dangerFullAccess' };
const READ_ONLY = { type: 'readOnly' };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// Bad base64 as a client may send it: padding missing or misplaced, bits left over, whitespace, URL-safe symbols.
const BAD_BASE64 = ['YQ', 'YQ=', 'YR==', 'Y', 'YQ==YQ==', 'YQ=a', 'YWJj\n', 'YW Jj', '====', 'YQ===', 'YWJjZA', 'YWJjZA=', 'Y===', 'YWJ=', '-_', 'YQ==\u00e9'];

/** The side's directory, and the reference's helper dirs on PATH, out of the way. */
function normalised(value: unknown, root: string): unknown {
  return JSON.parse(JSON.stringify(value).split(root).join('<root>').replace(/No viable candidates found in PATH \\"[^\\]*\\"/, 'No viable candidates found in PATH <PATH>'));
}

async function runScript(side: Side, root: string): Promise<Record<string, unknown>> {
  const home = join(root, 'home');
  const ws = join(root, 'ws');
  mkdirSync(join(home, 'tmpdir'), { recursive: true });
  mkdirSync(ws);
  mkdirSync(join(root, 'userhome'));
  writeFileSync(join(home, 'config.toml'), mockModelConfig(reference.mock.url));
  const server = await TestServer.start({
    home,
    keepConfig: true,
    env: { TMPDIR: join(home, 'tmpdir'), HOME: join(root, 'userhome'), RUST_BACKTRACE: '0', TERM: 'xterm' },
    ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}),
  });
  const seen: Record<string, unknown> = {};
  const answer = async (method: string, params: unknown): Promise<Message> => {
    const { id: _id, ...rest } = await server.requestRaw(method, params, 30_000);
    return rest;
  };
  const deltas = (processId: string) => server.notifications('command/exec/outputDelta').filter((n) => n.params.processId === processId).map((n) => n.params);
  const text = (processId: string) => deltas(processId).map((delta) => Buffer.from(delta.deltaBase64, 'base64').toString('latin1')).join('');
  const output = (processId: string) => {
    const all = deltas(processId);
    return { text: text(processId), streams: [...new Set(all.map((delta) => delta.stream))], capReachedLast: all.at(-1)?.capReached ?? null, capReachedBefore: all.slice(0, -1).some((delta) => delta.capReached) };
  };
  const waitText = async (processId: string, needle: string) => {
    const deadline = Date.now() + 10_000;
    while (!text(processId).includes(needle)) {
      if (Date.now() > deadline) throw new Error(`${side}: ${processId} never printed ${JSON.stringify(needle)}: ${JSON.stringify(text(processId))}`);
      await pause(20);
    }
  };
  /** A command run to its end: its reply and its output. */
  const exec = async (name: string, params: Record<string, unknown>) => {
    seen[name] = { reply: await answer('command/exec', { cwd: ws, sandboxPolicy: FULL, ...params }), output: output(params.processId as string) };
  };
  try {
    seen.noProcessId = await answer('command/exec', { command: ['true'], tty: true });
    seen.sizeWithoutTty = await answer('command/exec', { command: ['true'], processId: 'x', size: { rows: 3, cols: 3 } });
    seen.sizeZero = await answer('command/exec', { command: ['true'], tty: true, processId: 'x', size: { rows: 0, cols: 3 } });
    seen.sizeZeroNoProcessId = await answer('command/exec', { command: ['true'], tty: true, size: { rows: 3, cols: 0 } });
    seen.sizeMissingCols = await answer('command/exec', { command: ['true'], tty: true, processId: 'x', size: { rows: 3 } });
    seen.bothCaps = await answer('command/exec', { command: ['true'], outputBytesCap: 5, disableOutputCap: true });
    seen.bothTimeouts = await answer('command/exec', { command: ['true'], timeoutMs: 5, disableTimeout: true });
    await exec('terminal', { command: bash('stty size; [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo on-tty; echo err >&2; tty | sed "s/[0-9]*$/N/"; exit 3'), tty: true, processId: 'basic' });
    await exec('sized', { command: bash('stty size; echo $COLUMNS'), tty: true, processId: 'sized', size: { rows: 30, cols: 100 } });
    await exec('flagsOff', { command: bash('echo hi'), tty: true, processId: 'off', streamStdin: false, streamStdoutStderr: false });
    await exec('lineEnds', { command: bash('printf "a\\nb\\r\\nc"'), tty: true, processId: 'nl' });
    await exec('environment', { command: bash('echo "P=${PWD-unset} T=${TERM-unset} X=$X"'), tty: true, processId: 'env', env: { TERM: null, X: 'y' } });
    {
      const run = answer('command/exec', { command: bash('echo ready; read x; echo got:$x; read y; echo got2:$y'), tty: true, processId: 'w1', cwd: ws, sandboxPolicy: FULL });
      await waitText('w1', 'ready');
      const first = await answer('command/exec/write', { processId: 'w1', deltaBase64: b64('hello\n') });
      await waitText('w1', 'got:hello');
      const second = await answer('command/exec/write', { processId: 'w1', deltaBase64: b64('bye\r') });
      seen.write = { first, second, reply: await run, output: output('w1') };
    }
    {
      const run = answer('command/exec', { command: bash('stty -echo; echo ready; read x; echo got:$x'), tty: true, processId: 'ne', cwd: ws, sandboxPolicy: FULL });
      await waitText('ne', 'ready');
      await answer('command/exec/write', { processId: 'ne', deltaBase64: b64('secret\n') });
      seen.noEcho = { reply: await run, output: output('ne') };
    }
    {
      const run = answer('command/exec', { command: ['cat'], tty: true, processId: 'cat', cwd: ws, sandboxPolicy: FULL, timeoutMs: 5000 });
      await pause(300);
      const write = await answer('command/exec/write', { processId: 'cat', deltaBase64: b64('abc\n') });
      // cat's copy first, so that the echo of what closeStdin sends cannot come between.
      await waitText('cat', 'abc\r\nabc\r\n');
      const closing = await answer('command/exec/write', { processId: 'cat', closeStdin: true });
      seen.closeStdin = { write, closing, reply: await run, output: output('cat') };
    }
    {
      const run = answer('command/exec', { command: ['cat'], tty: true, processId: 'eof', cwd: ws, sandboxPolicy: FULL, timeoutMs: 5000 });
      await pause(300);
      const write = await answer('command/exec/write', { processId: 'eof', deltaBase64: b64('abc\n\x04') });
      seen.ctrlD = { write, reply: await run, output: output('eof') };
    }
    {
      const run = answer('command/exec', { command: bash('echo ready; sleep 1.5; echo end'), tty: true, processId: 'closed', cwd: ws, sandboxPolicy: FULL });
      await waitText('closed', 'ready');
      const close = await answer('command/exec/write', { processId: 'closed', closeStdin: true });
      const write = await answer('command/exec/write', { processId: 'closed', deltaBase64: b64('x') });
      const closeAgain = await answer('command/exec/write', { processId: 'closed', closeStdin: true });
      const empty = await answer('command/exec/write', { processId: 'closed', deltaBase64: '' });
      const nothing = await answer('command/exec/write', { processId: 'closed' });
      seen.afterClose = { close, write, closeAgain, empty, nothing, reply: await run, output: output('closed') };
    }
    {
      const run = answer('command/exec', { command: bash('trap "echo INT; exit 5" INT; echo ready; while :; do sleep 0.05; done'), tty: true, processId: 'int', cwd: ws, sandboxPolicy: FULL, timeoutMs: 5000 });
      await waitText('int', 'ready');
      const write = await answer('command/exec/write', { processId: 'int', deltaBase64: b64('\x03') });
      seen.ctrlC = { write, reply: await run, output: output('int') };
    }
    {
      const run = answer('command/exec', { command: ['sleep', '5'], tty: true, processId: 'intSleep', cwd: ws, sandboxPolicy: FULL, timeoutMs: 5000 });
      await pause(300);
      const write = await answer('command/exec/write', { processId: 'intSleep', deltaBase64: b64('\x03') });
      seen.ctrlCUntrapped = { write, reply: await run, output: output('intSleep') };
    }
    {
      const run = answer('command/exec', { command: bash('trap "stty size" WINCH; echo ready; while :; do sleep 0.05; done'), tty: true, processId: 'win', cwd: ws, sandboxPolicy: FULL, timeoutMs: 8000 });
      await waitText('win', 'ready');
      const resized = await answer('command/exec/resize', { processId: 'win', size: { rows: 40, cols: 120 } });
      await waitText('win', '40 120');
      const zeroRows = await answer('command/exec/resize', { processId: 'win', size: { rows: 0, cols: 120 } });
      const zeroCols = await answer('command/exec/resize', { processId: 'win', size: { rows: 5, cols: 0 } });
      const tooBig = await answer('command/exec/resize', { processId: 'win', size: { rows: 70000, cols: 1 } });
      const noCols = await answer('command/exec/resize', { processId: 'win', size: { rows: 5 } });
      const terminated = await answer('command/exec/terminate', { processId: 'win' });
      const reply = await run;
      const resizeAfter = await answer('command/exec/resize', { processId: 'win', size: { rows: 5, cols: 5 } });
      const terminateAfter = await answer('command/exec/terminate', { processId: 'win' });
      seen.resize = { resized, zeroRows, zeroCols, tooBig, noCols, terminated, reply, resizeAfter, terminateAfter, output: output('win') };
    }
    {
      // No process holds the terminal any more, but the command runs on: it is not hung up.
      const run = answer('command/exec', { command: bash('echo ready; exec </dev/null >/dev/null 2>&1; sleep 1'), tty: true, processId: 'let', cwd: ws, sandboxPolicy: FULL });
      await waitText('let', 'ready');
      await pause(300);
      // (A write now would be echoed on thread-host, whose terminal is still read: see docs/tools.md.)
      const resized = await answer('command/exec/resize', { processId: 'let', size: { rows: 9, cols: 9 } });
      seen.terminalLetGo = { resized, reply: await run, output: output('let') };
    }
    seen.resizeUnknown = await answer('command/exec/resize', { processId: 'nope', size: { rows: 5, cols: 5 } });
    seen.resizeUnknownZero = await answer('command/exec/resize', { processId: 'nope', size: { rows: 0, cols: 5 } });
    {
      const run = answer('command/exec', { command: ['sleep', '5'], processId: 'pipe', cwd: ws, sandboxPolicy: FULL, streamStdin: true });
      await pause(200);
      const resized = await answer('command/exec/resize', { processId: 'pipe', size: { rows: 5, cols: 5 } });
      const zero = await answer('command/exec/resize', { processId: 'pipe', size: { rows: 0, cols: 5 } });
      const bad: Record<string, Message> = {};
      for (const text of BAD_BASE64) bad[text] = await answer('command/exec/write', { processId: 'pipe', deltaBase64: text });
      const good = await answer('command/exec/write', { processId: 'pipe', deltaBase64: 'YWI=' });
      const close = await answer('command/exec/write', { processId: 'pipe', closeStdin: true });
      const afterClose = await answer('command/exec/write', { processId: 'pipe', deltaBase64: b64('x') });
      await answer('command/exec/terminate', { processId: 'pipe' });
      seen.pipe = { resized, zero, bad, good, close, afterClose, reply: await run };
    }
    await exec('timeout', { command: bash('echo a; sleep 5'), tty: true, processId: 'late', timeoutMs: 500 });
    await exec('cap', { command: bash('printf 0123456789abcdef'), tty: true, processId: 'cap', outputBytesCap: 5 });
    await exec('backgroundChild', { command: bash('(sleep 1; echo late) & echo started'), tty: true, processId: 'bg' });
    await exec('signal', { command: bash('kill -TERM $$'), tty: true, processId: 'sig' });
    seen.signalOnPipes = await answer('command/exec', { command: bash('kill -TERM $$'), cwd: ws, sandboxPolicy: FULL });
    {
      const run = answer('command/exec', { command: ['sleep', '0.5'], tty: true, processId: 'dup', cwd: ws, sandboxPolicy: FULL });
      await pause(100);
      seen.duplicate = { second: await answer('command/exec', { command: ['true'], tty: true, processId: 'dup', cwd: ws, sandboxPolicy: FULL }), reply: await run };
    }
    seen.missingAbsolute = await answer('command/exec', { command: ['/nonexistent/x'], tty: true, processId: 'm1', cwd: ws, sandboxPolicy: FULL });
    seen.missingBare = await answer('command/exec', { command: ['nonexistent-prog-xyz'], tty: true, processId: 'm2', cwd: ws, sandboxPolicy: FULL });
    seen.missingOnPipes = await answer('command/exec', { command: ['nonexistent-prog-xyz'], cwd: ws, sandboxPolicy: FULL });
    // Sandboxed: the command runs inside the sandbox on the same terminal.
    await exec('readOnly', { command: bash('stty size; [ -t 0 ] && echo tty; echo x > f.txt; echo rc=$?'), tty: true, processId: 'ro', sandboxPolicy: READ_ONLY });
    await exec('workspaceWrite', { command: bash('stty size; echo x > f.txt; echo rc=$?; cat f.txt'), tty: true, processId: 'wsw', size: { rows: 12, cols: 34 }, sandboxPolicy: { type: 'workspaceWrite', writableRoots: [ws] } });
    await exec('readOnlySignal', { command: bash('kill -TERM $$'), tty: true, processId: 'roSig', sandboxPolicy: READ_ONLY });
    await exec('readOnlyTimeout', { command: bash('echo a; sleep 5'), tty: true, processId: 'roLate', sandboxPolicy: READ_ONLY, timeoutMs: 500 });
    {
      const script = 'trap "stty size" WINCH; trap "echo INT; exit 5" INT; echo ready; while :; do sleep 0.05; done';
      const run = answer('command/exec', { command: bash(script), tty: true, processId: 'roInt', cwd: ws, sandboxPolicy: READ_ONLY, timeoutMs: 5000 });
      await waitText('roInt', 'ready');
      const resized = await answer('command/exec/resize', { processId: 'roInt', size: { rows: 41, cols: 121 } });
      await pause(500);
      const write = await answer('command/exec/write', { processId: 'roInt', deltaBase64: b64('\x03') });
      seen.readOnlyResizeAndCtrlC = { resized, write, reply: await run, output: output('roInt') };
    }
    {
      const run = answer('command/exec', { command: bash('echo ready; read x; echo got:$x'), tty: true, processId: 'roRead', cwd: ws, sandboxPolicy: READ_ONLY, timeoutMs: 5000 });
      await waitText('roRead', 'ready');
      const write = await answer('command/exec/write', { processId: 'roRead', deltaBase64: b64('hi\n') });
      seen.readOnlyWrite = { write, reply: await run, output: output('roRead') };
    }
    {
      const run = answer('command/exec', { command: bash('echo ready; sleep 30'), tty: true, processId: 'roKill', cwd: ws, sandboxPolicy: READ_ONLY });
      await waitText('roKill', 'ready');
      seen.readOnlyTerminate = { terminated: await answer('command/exec/terminate', { processId: 'roKill' }), reply: await run, output: output('roKill') };
    }
  } finally {
    expect(await server.close()).toBe(0);
  }
  return normalised(seen, root) as Record<string, unknown>;
}

test('command/exec on a terminal: the same replies, errors and output as the reference, unsandboxed and sandboxed', async () => {
  const top = mkdtempSync(join(tmpdir(), 'thread-host-interop-tty-'));
  try {
    const codex = await runScript('codex', join(top, 'codex'));
    const threadHost = await runScript('thread-host', join(top, 'thread-host'));
    expect(Object.keys(threadHost)).toEqual(Object.keys(codex));
    for (const key of Object.keys(codex)) expect({ [key]: threadHost[key] }).toEqual({ [key]: codex[key] });
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
}, 240_000);
