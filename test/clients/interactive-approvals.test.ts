// Opt-in (`npm run test:clients`): approvals in the reference's interactive client
// (codex-cli 0.171.0) in tmux against thread-host over WebSocket, through a relay that keeps
// the wire. The mock model asks for a command that leaves the sandbox
// (`sandbox_permissions: "require_escalated"`); under the home's approval_policy on-request
// thread-host asks `item/commandExecution/requestApproval`, and the client shows its prompt:
// `y` runs the command and shows its output, Esc (the client's only "no": it answers `cancel`)
// runs nothing and ends the turn interrupted; in a danger-full-access client nothing is asked
// (no sandbox to leave). The y and Esc screens are the ones the client shows against
// `codex app-server` (compared by hand; on the wire the reference also sends
// thread/status/changed `waitingOnApproval` around the question, which changes nothing shown).
// The client's thread/start asks for the sandbox of its own config (read-only unless told,
// whatever the host's home says) and no approval policy; each turn/start carries the policy it
// read with config/read, so the home's on-request is what applies. Then `apply_patch` (`[features]
// apply_patch_tool = true`): a patch the client's workspace-write sandbox allows is applied with
// no prompt; under its default read-only sandbox it is asked for, and y applies it.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { mockModelConfig } from '../../src/main/commands/mock-model/mock-config.js';
import { functionCallItem, messageItem } from '../../src/main/commands/mock-model/mock-model-server.js';
import { referenceAndMock } from '../interop/reference-and-mock.js';
import { CodexCli } from './codex-cli.js';
import { startHost, type HostUnderTest } from './host-under-test.js';
import { firstMessage, quit, READY } from './interactive-client.js';
import { TmuxTerminal } from './tmux-terminal.js';
import { answered, settledTurns } from './thread-turns.js';
import { WireLog } from './wire-log.js';

const reference = referenceAndMock();

const SCRIPT = 'echo approved-output > out.txt; echo done-marker';
const ESCALATED = { cmd: SCRIPT, sandbox_permissions: 'require_escalated', justification: 'Need to write the file' };
const PATCH = '*** Begin Patch\n*** Add File: new.txt\n+hello\n+world\n*** Update File: upd.txt\n@@\n line1\n-line2\n+LINE2\n line3\n*** End Patch';
const patchCall = { type: 'custom_tool_call', id: 'ctc_call-1', call_id: 'call-1', name: 'apply_patch', input: PATCH };

/** The approval prompt as the client draws it, blank lines left out. */
const PROMPT = [
  '  Would you like to run the following command?',
  '  Environment: local',
  '  Reason: Need to write the file',
  `  $ ${SCRIPT}`,
  '› 1. Yes, proceed (y)',
  `  2. Yes, and don't ask again for commands that start with \`${SCRIPT}\` (p)`,
  '  3. No, and tell Codex what to do differently (esc)',
  '  Press enter to confirm or esc to cancel',
];

interface Session {
  host: HostUnderTest;
  /** The host as the client knows it: its address is the relay's. */
  relayed: HostUnderTest;
  wire: WireLog;
  terminal: TmuxTerminal;
  threadId: string;
}

/**
 * thread-host with a home of approval_policy on-request (and read-only, as the harness's),
 * the client through the relay with `clientArgs`, and the client's first message answered.
 */
async function session(options: { features?: string[]; clientArgs?: string[] } = {}): Promise<Session> {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-approvals-home-'));
  onTestFinished(() => rmSync(home, { recursive: true, force: true }));
  const features = options.features === undefined ? '' : `\n[features]\n${options.features.join('\n')}\n`;
  const config = mockModelConfig(reference.mock.url).replace('approval_policy = "never"', 'approval_policy = "on-request"');
  writeFileSync(join(home, 'config.toml'), config + features);
  const host = await startHost('ws', { home, keepConfig: true });
  const wire = await WireLog.start(host.remote);
  const relayed = { ...host, remote: wire.remote };
  const cli = new CodexCli(reference.codex);
  const terminal = new TmuxTerminal([cli.binary, '--remote', wire.remote, ...(options.clientArgs ?? [])], { cwd: cli.home, env: cli.ownEnv() });
  await terminal.waitForText(READY, 30_000);
  // A test that failed may have left replies queued.
  reference.mock.discardQueued();
  onTestFinished(() => void reference.mock.discardQueued());
  const threadId = await firstMessage(terminal, relayed, reference.mock, 'hello');
  return { host, relayed, wire, terminal, threadId };
}

/** The screen's lines from the one that includes `first` to the one that includes `last`, blank lines left out. */
function block(screen: string, first: string, last: string): string[] {
  const lines = screen.split('\n');
  const from = lines.findIndex((line) => line.includes(first));
  const to = lines.findIndex((line, at) => at >= from && line.includes(last));
  if (from < 0 || to < 0) throw new Error(`no ${JSON.stringify(first)} … ${JSON.stringify(last)} on the screen:\n${screen}`);
  return lines.slice(from, to + 1).filter((line) => line.trim() !== '');
}

/** What the client sent in its thread/start and turn/start: the policy and sandbox it asks for. */
function asksFor(wire: WireLog, threadId: string): unknown {
  const [start] = wire.sent('thread/start').filter((params) => params.threadSource === 'user');
  const turns = wire.sent('turn/start').filter((params) => params.threadId === threadId).map((params) => ({ approvalPolicy: params.approvalPolicy, sandboxPolicy: params.sandboxPolicy }));
  return { threadStart: { approvalPolicy: start?.approvalPolicy, sandbox: start?.sandbox, cwd: start?.cwd }, turns };
}

/** Every approval request thread-host sent, of any kind. */
const approvalRequests = (wire: WireLog): unknown[] =>
  wire.messages.filter((m) => m.direction === 'down' && typeof m.message.method === 'string' && m.message.method.endsWith('/requestApproval'));

/** The second turn, once settled, is `{status: 'completed', items}`; then /quit, and the host stops cleanly. */
async function completedThenQuit({ host, relayed, terminal, threadId }: Session, items: string[]): Promise<void> {
  expect(await settledTurns(host.control, threadId, 2)).toEqual([answered('hello'), { status: 'completed', items }]);
  await terminal.waitForText(READY);
  await quit(terminal, relayed, threadId);
  expect(await host.server.stop()).toBe(0);
}

/** The approvals thread-host asked, each as `[itemId, reason, the client's decision]`. */
const approvals = (wire: WireLog): unknown[] =>
  wire.asked('item/commandExecution/requestApproval').map(({ request, answer }) => [request.params.itemId, request.params.reason, answer?.result?.decision ?? null]);

test('an escalated command: the prompt, y runs it and its output is shown', async () => {
  const started = await session();
  const { host, wire, terminal, threadId } = started;
  reference.mock.enqueue({ kind: 'output', items: [functionCallItem('call-1', 'exec_command', ESCALATED)] });
  reference.mock.enqueue({ kind: 'output', items: [messageItem('msg-1', 'Command ran')] });
  await terminal.submit('write the file');
  const prompt = await terminal.waitForText('Press enter to confirm or esc to cancel');
  expect(block(prompt, `• Running ${SCRIPT}`, 'Press enter')).toEqual([`• Running ${SCRIPT}`, ...PROMPT]);
  // The client asks for no policy of its own at thread/start (the home's applies), and sends
  // the one it read from the host's config (config/read) with each turn; its sandbox is read-only.
  expect(asksFor(wire, threadId)).toEqual({ threadStart: { approvalPolicy: null, sandbox: 'read-only', cwd: null }, turns: [{ approvalPolicy: 'on-request', sandboxPolicy: null }, { approvalPolicy: 'on-request', sandboxPolicy: null }] });
  expect(existsSync(join(host.server.home, 'out.txt'))).toBe(false);

  terminal.press('y');
  const done = await terminal.waitForText('• Command ran');
  expect(block(done, '✔ You approved', '• Command ran')).toEqual([
    `✔ You approved codex to run ${SCRIPT} this time`,
    `• Ran ${SCRIPT}`,
    '  └ done-marker',
    '• Command ran',
  ]);
  expect(approvals(wire)).toEqual([['call-1', 'Need to write the file', 'accept']]);
  // The thread's cwd is the host's (the client sends none): the command ran there.
  expect(readFileSync(join(host.server.home, 'out.txt'), 'utf8')).toBe('approved-output\n');
  await completedThenQuit(started, ['user: write the file', 'commandExecution', 'agent: Command ran']);
});

test('an escalated command: Esc cancels it, nothing runs and the turn is interrupted', async () => {
  const { host, wire, terminal, threadId } = await session();
  reference.mock.enqueue({ kind: 'output', items: [functionCallItem('call-1', 'exec_command', ESCALATED)] });
  const modelRequests = reference.mock.requests.length;
  await terminal.submit('write the file');
  const prompt = await terminal.waitForText('Press enter to confirm or esc to cancel');
  expect(block(prompt, 'Would you like', 'Press enter')).toEqual(PROMPT);

  terminal.press('Escape');
  const cancelled = await terminal.waitForText('■ Conversation interrupted');
  expect(block(cancelled, '✗ You canceled', '■ Conversation interrupted')).toEqual([
    `✗ You canceled the request to run ${SCRIPT}`,
    `• Exited (status 1) ${SCRIPT}`,
    '  └ (no output)',
    '■ Conversation interrupted - use /feedback if something went wrong',
  ]);
  // The prompt's "No" is `cancel` (the request offers no `decline`), as against the reference.
  expect(approvals(wire)).toEqual([['call-1', 'Need to write the file', 'cancel']]);
  expect(existsSync(join(host.server.home, 'out.txt'))).toBe(false);
  expect(await settledTurns(host.control, threadId, 2)).toEqual([answered('hello'), { status: 'interrupted', items: ['user: write the file', 'commandExecution'] }]);
  const { thread } = await host.control.request('thread/read', { threadId, includeTurns: true });
  expect(thread.turns[1].items[1]).toMatchObject({ id: 'call-1', status: 'declined', processId: null, exitCode: null, aggregatedOutput: null });
  // The model was asked once for the turn, and not again after the cancel.
  expect(reference.mock.requests.length).toBe(modelRequests + 1);
  await terminal.waitForText(READY);
  await terminal.submit('/quit');
  expect(await terminal.exitStatus()).toBe(0);
  expect(await host.server.stop()).toBe(0);
});

test('an escalated command in a danger-full-access client: no prompt, it runs', async () => {
  const started = await session({ clientArgs: ['-c', 'sandbox_mode="danger-full-access"'] });
  const { host, wire, terminal } = started;
  reference.mock.enqueue({ kind: 'output', items: [functionCallItem('call-1', 'exec_command', ESCALATED)] });
  reference.mock.enqueue({ kind: 'output', items: [messageItem('msg-1', 'Command ran')] });
  await terminal.submit('write the file');
  const done = await terminal.waitForText('• Command ran');
  expect(block(done, '› write the file', '• Command ran')).toEqual(['› write the file', `• Ran ${SCRIPT}`, '  └ done-marker', '• Command ran']);
  expect(wire.sent('thread/start').find((params) => params.threadSource === 'user')?.sandbox).toBe('danger-full-access');
  expect(approvalRequests(wire)).toEqual([]);
  expect(readFileSync(join(host.server.home, 'out.txt'), 'utf8')).toBe('approved-output\n');
  await completedThenQuit(started, ['user: write the file', 'commandExecution', 'agent: Command ran']);
});

test('a patch in a workspace-write client: applied with no prompt, the client shows the edits', async () => {
  const started = await session({ features: ['apply_patch_tool = true'], clientArgs: ['-c', 'sandbox_mode="workspace-write"'] });
  const { host, wire, terminal } = started;
  writeFileSync(join(host.server.home, 'upd.txt'), 'line1\nline2\nline3\n');
  reference.mock.enqueue({ kind: 'output', items: [patchCall] });
  reference.mock.enqueue({ kind: 'output', items: [messageItem('msg-1', 'Patched')] });
  await terminal.submit('patch the files');
  const done = await terminal.waitForText('• Patched');
  expect(block(done, '• Edited', '• Patched')).toEqual([
    '• Edited 2 files (+3 -1)',
    '  └ new.txt (+2 -0)',
    '    1 +hello',
    '    2 +world',
    '  └ upd.txt (+1 -1)',
    '    2 -line2',
    '    2 +LINE2',
    '    + Show details',
    '• Patched',
  ]);
  expect(wire.sent('thread/start').find((params) => params.threadSource === 'user')?.sandbox).toBe('workspace-write');
  expect(approvalRequests(wire)).toEqual([]);
  expect([readFileSync(join(host.server.home, 'new.txt'), 'utf8'), readFileSync(join(host.server.home, 'upd.txt'), 'utf8')]).toEqual(['hello\nworld\n', 'line1\nLINE2\nline3\n']);
  await completedThenQuit(started, ['user: patch the files', 'fileChange', 'agent: Patched']);
});

test('a patch in the default read-only client: the prompt, y applies it and the client shows the edits', async () => {
  const started = await session({ features: ['apply_patch_tool = true'] });
  const { host, wire, terminal } = started;
  const home = host.server.home;
  writeFileSync(join(home, 'upd.txt'), 'line1\nline2\nline3\n');
  reference.mock.enqueue({ kind: 'output', items: [patchCall] });
  reference.mock.enqueue({ kind: 'output', items: [messageItem('msg-1', 'Patched')] });
  await terminal.submit('patch the files');
  // Under on-request a write the read-only sandbox does not allow is asked for, as the reference asks it.
  const prompt = await terminal.waitForText('Press enter to confirm or esc to cancel');
  expect(block(prompt, 'Would you like', 'Press enter')).toEqual([
    '  Would you like to make the following edits?',
    '  Description: Apply proposed file edits',
    `  Destination: ${home}/new.txt`,
    `  Destination: ${home}/upd.txt`,
    '› 1. Yes, proceed (y)',
    "  2. Yes, and don't ask again for these files (a)",
    '  3. No, and tell Codex what to do differently (esc)',
    '  Press enter to confirm or esc to cancel',
  ]);
  expect(existsSync(join(home, 'new.txt'))).toBe(false);
  terminal.press('y');
  await terminal.waitForText('• Patched');
  const asked = wire.asked('item/fileChange/requestApproval').map(({ request, answer }) => [request.params.itemId, answer?.result?.decision ?? null]);
  expect(asked).toEqual([['call-1', 'accept']]);
  expect([readFileSync(join(home, 'new.txt'), 'utf8'), readFileSync(join(home, 'upd.txt'), 'utf8')]).toEqual(['hello\nworld\n', 'line1\nLINE2\nline3\n']);
  await completedThenQuit(started, ['user: patch the files', 'fileChange', 'agent: Patched']);
});
