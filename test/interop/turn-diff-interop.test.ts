// Opt-in (`npm run test:interop`): one patch script run against the real reference, codex-cli
// 0.171.0 (model gpt-5.5, whose metadata asks for apply_patch), and against thread-host
// (`[features] apply_patch_tool = true`), on the same mock model: patches that add, update,
// delete and move files, a command that changes files between them, and an edit of a file
// outside the cwd; then turns whose command changes or deletes a patched file after the patch,
// or writes a file no patch touched. Compared exactly (the side's directory aside): every
// `turn/diff/updated`, in order, with the item it followed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { functionCallItem, messageItem, type MockBehaviour } from '../../src/main/commands/mock-model/mock-model-server.js';
import { referenceAndMock } from './reference-and-mock.js';
import { mockModelConfig, TestServer } from '../helpers/test-server.js';

type Side = 'thread-host' | 'codex';
const reference = referenceAndMock();
const patchCall = (callId: string, body: string): MockBehaviour => ({
  kind: 'output',
  items: [{ type: 'custom_tool_call', id: `ctc_${callId}`, call_id: callId, name: 'apply_patch', input: `*** Begin Patch\n${body}*** End Patch` }],
});
const SCRIPT: MockBehaviour[] = [
  patchCall('p1', '*** Add File: new.txt\n+hello\n+world\n*** Update File: upd.txt\n@@\n line1\n-line2\n+LINE2\n line3\n*** Update File: ../top.txt\n@@\n a\n-b\n+B\n'),
  patchCall('p2', '*** Delete File: del.txt\n*** Update File: mv.txt\n*** Move to: sub/moved.txt\n@@\n alpha\n-beta\n+BETA\n'),
  { kind: 'output', items: [functionCallItem('c1', 'exec_command', { cmd: 'echo changed > sh.txt' })] },
  patchCall('p3', '*** Update File: sh.txt\n@@\n-changed\n+patched\n*** Update File: new.txt\n@@\n hello\n-world\n+there\n'),
  { kind: 'output', items: [messageItem('m1', 'done')] },
];

// One turn each: a command after the turn's patch appends to its file and writes a file of its
// own; deletes the patched file; deletes the file the patch added; puts back the content the
// patch changed.
const AFTER_SHELL: MockBehaviour[][] = [
  [patchCall('q1', '*** Update File: upd.txt\n@@\n line1\n-line2\n+LINE2\n'), { kind: 'output', items: [functionCallItem('d1', 'exec_command', { cmd: 'echo more >> upd.txt; echo own > own.txt' })] }, { kind: 'output', items: [messageItem('n1', 'done')] }],
  [patchCall('q2', '*** Update File: del.txt\n@@\n-bye\n+BYE\n'), { kind: 'output', items: [functionCallItem('d2', 'exec_command', { cmd: 'rm del.txt' })] }, { kind: 'output', items: [messageItem('n2', 'done')] }],
  [patchCall('q3', '*** Add File: added.txt\n+new\n'), { kind: 'output', items: [functionCallItem('d3', 'exec_command', { cmd: 'rm added.txt' })] }, { kind: 'output', items: [messageItem('n3', 'done')] }],
  [patchCall('q4', '*** Update File: mv.txt\n@@\n-alpha\n+ALPHA\n'), { kind: 'output', items: [functionCallItem('d4', 'exec_command', { cmd: 'printf "alpha\\nbeta\\n" > mv.txt' })] }, { kind: 'output', items: [messageItem('n4', 'done')] }],
];

async function diffsOf(side: Side, root: string, turns: MockBehaviour[][] = [SCRIPT]): Promise<Array<{ after: string; diff: string }>> {
  const home = join(root, 'home');
  const cwd = join(root, 'top', 'ws');
  mkdirSync(join(home, 'tmpdir'), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(root, 'top', 'top.txt'), 'a\nb\n');
  for (const [name, text] of [['upd.txt', 'line1\nline2\nline3\n'], ['del.txt', 'bye\n'], ['mv.txt', 'alpha\nbeta\n'], ['sh.txt', 'orig\n']]) writeFileSync(join(cwd, name!), text!);
  const config = mockModelConfig(reference.mock.url, 'features.apply_patch_tool = true');
  // The reference offers apply_patch only to a model whose metadata asks for it, and does not know the feature key.
  writeFileSync(join(home, 'config.toml'), side === 'codex' ? config.replace('model = "mock-model"', 'model = "gpt-5.5"').replace('features.apply_patch_tool = true', '') : config);
  const server = await TestServer.start({ home, keepConfig: true, env: { TMPDIR: join(home, 'tmpdir') }, ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}) });
  const { thread } = await server.request('thread/start', { cwd, approvalPolicy: 'never', sandbox: 'danger-full-access' });
  for (const replies of turns) {
    for (const reply of replies) reference.mock.enqueue(reply);
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'patch' }] });
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 30_000);
  }
  const seen: Array<{ after: string; diff: string }> = [];
  let after = '';
  for (const message of server.received) {
    if (message.method === 'item/completed') after = `${message.params.item.type} ${message.params.item.id}`;
    if (message.method === 'turn/diff/updated') seen.push({ after, diff: (message.params.diff as string).split(root).join('<root>') });
  }
  expect(await server.close()).toBe(0);
  return seen;
}

test('turn/diff/updated: the same diffs after the same items on both', async () => {
  const top = mkdtempSync(join(tmpdir(), 'thread-host-interop-turn-diff-'));
  try {
    const codex = await diffsOf('codex', join(top, 'codex'));
    const threadHost = await diffsOf('thread-host', join(top, 'thread-host'));
    expect(codex.map(({ after }) => after)).toEqual(['fileChange p1', 'fileChange p2', 'fileChange p3', 'agentMessage m1']);
    expect(threadHost).toEqual(codex);
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});

test('turn/diff/updated at a turn\'s end repeats the last patch\'s diff, whatever a command changed after it, on both', async () => {
  const top = mkdtempSync(join(tmpdir(), 'thread-host-interop-turn-diff-shell-'));
  try {
    const codex = await diffsOf('codex', join(top, 'codex'), AFTER_SHELL);
    const threadHost = await diffsOf('thread-host', join(top, 'thread-host'), AFTER_SHELL);
    expect(codex.map(({ after }) => after)).toEqual(['fileChange q1', 'agentMessage n1', 'fileChange q2', 'agentMessage n2', 'fileChange q3', 'agentMessage n3', 'fileChange q4', 'agentMessage n4']);
    for (let i = 0; i < codex.length; i += 2) expect(codex[i + 1]!.diff).toBe(codex[i]!.diff);
    expect(threadHost).toEqual(codex);
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});
