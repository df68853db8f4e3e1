// `turn/diff/updated` end to end: after each patch a turn applies, and once more at a completed
// turn's end, the diff of every file the turn's patches touched, in git's format. The expected
// texts are the reference's (codex-cli 0.171.0 with gpt-5.5, probed with the same files and
// patches: docs/tools.md, Patches).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { functionCallItem, messageItem, startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer } from '../helpers/test-server.js';

let mock: MockModel;
let root: string;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
  root = mkdtempSync(join(tmpdir(), 'thread-host-turn-diff-'));
});
afterAll(() => {
  mock.close();
  rmSync(root, { recursive: true, force: true });
});

const patchCall = (callId: string, input: string) => ({ kind: 'output' as const, items: [{ type: 'custom_tool_call', id: `ctc_${callId}`, call_id: callId, name: 'apply_patch', input }] });
const patch = (body: string) => `*** Begin Patch\n${body}*** End Patch`;

/** One turn of these model replies; the diffs it sent, in order, with where each came. */
async function diffsOfTurn(cwd: string, replies: Parameters<MockModel['enqueue']>[0][]): Promise<Array<{ after: string; diff: string }>> {
  const server = await TestServer.start({ modelUrl: mock.url, rootConfig: 'features.apply_patch_tool = true' });
  try {
    const { thread } = await server.request('thread/start', { cwd, sandbox: 'danger-full-access', approvalPolicy: 'never' });
    for (const reply of replies) mock.enqueue(reply);
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'patch' }] });
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
    const seen: Array<{ after: string; diff: string }> = [];
    let after = '';
    for (const message of server.received) {
      if (message.method === 'item/completed') after = `${message.params.item.type} ${message.params.item.id}`;
      if (message.method === 'turn/diff/updated') {
        expect(Object.keys(message.params)).toEqual(['threadId', 'turnId', 'diff']);
        expect([message.params.threadId, message.params.turnId]).toEqual([thread.id, turn.id]);
        seen.push({ after, diff: message.params.diff as string });
      }
    }
    return seen;
  } finally {
    await server.close();
  }
}

const ADDED_NEW = 'diff --git a/new.txt b/new.txt\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..94954abda49de8615a048f8d2e64b5de848e27a1\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n';
const UPDATED = 'diff --git a/upd.txt b/upd.txt\nindex 83db48f84ec878fbfb30b46d16630e944e34f205..534a16eb51b8a6772375f3d20f9f8fde6ad0a154\n--- a/upd.txt\n+++ b/upd.txt\n@@ -1,3 +1,3 @@\n line1\n-line2\n+LINE2\n line3\n';
const DELETED = 'diff --git a/del.txt b/del.txt\ndeleted file mode 100644\nindex b023018cabc396e7692c70bbf5784a93d3f738ab..0000000000000000000000000000000000000000\n--- a/del.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n';
const MOVED = 'diff --git a/mv.txt b/sub/moved.txt\nindex fbbee861521bd5355538b096fa3998541cd33909..cd964df426dd6f6b7c723de841a342efbaf4cc69\n--- a/mv.txt\n+++ b/sub/moved.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n';
const SHELL_THEN_PATCHED = 'diff --git a/sh.txt b/sh.txt\nindex 5ea2ed416fbd4a4cbe227b75fe255dd7fa6bd4d6..893adcd31e963b01dfbbcfe3ec58a008f0d81201\n--- a/sh.txt\n+++ b/sh.txt\n@@ -1 +1 @@\n-changed\n+patched\n';

test('each patch is followed by the turn diff so far, a command\'s changes are not tracked, and the end repeats the last', async () => {
  const cwd = join(root, 'plain');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'upd.txt'), 'line1\nline2\nline3\n');
  writeFileSync(join(cwd, 'del.txt'), 'bye\n');
  writeFileSync(join(cwd, 'mv.txt'), 'alpha\nbeta\n');
  writeFileSync(join(cwd, 'sh.txt'), 'orig\n');
  const seen = await diffsOfTurn(cwd, [
    patchCall('p1', patch('*** Add File: new.txt\n+hello\n+world\n*** Update File: upd.txt\n@@\n line1\n-line2\n+LINE2\n line3\n')),
    patchCall('p2', patch('*** Delete File: del.txt\n*** Update File: mv.txt\n*** Move to: sub/moved.txt\n@@\n alpha\n-beta\n+BETA\n')),
    { kind: 'output', items: [functionCallItem('c1', 'exec_command', { cmd: 'echo changed > sh.txt; echo brand > shnew.txt' })] },
    patchCall('p4', patch('*** Update File: sh.txt\n@@\n-changed\n+patched\n')),
    { kind: 'output', items: [messageItem('m1', 'done')] },
  ]);
  const last = DELETED + MOVED + ADDED_NEW + SHELL_THEN_PATCHED + UPDATED;
  expect(seen).toEqual([
    { after: 'fileChange p1', diff: ADDED_NEW + UPDATED },
    { after: 'fileChange p2', diff: DELETED + MOVED + ADDED_NEW + UPDATED },
    { after: 'fileChange p4', diff: last },
    { after: 'agentMessage m1', diff: last },
  ]);
});

test('paths are relative to the git work tree, else to the cwd, else absolute; a file back to where it was drops out', async () => {
  const repo = join(root, 'repo');
  mkdirSync(join(repo, 'sub'), { recursive: true });
  writeFileSync(join(repo, 'top.txt'), 'a\nb\n');
  writeFileSync(join(repo, 'sub', 'nonl.txt'), 'x\ny');
  execFileSync('git', ['init', '-q'], { cwd: repo });
  const plain = join(root, 'nogit');
  mkdirSync(join(plain, 'sub'), { recursive: true });
  writeFileSync(join(plain, 'top.txt'), 'a\nb\n');
  const edits = patch('*** Add File: x.txt\n+x\n*** Update File: ../top.txt\n@@\n a\n-b\n+B\n');
  const inRepo = await diffsOfTurn(join(repo, 'sub'), [patchCall('p1', patch('*** Update File: nonl.txt\n@@\n x\n-y\n+z\n')), patchCall('p2', edits), { kind: 'output', items: [messageItem('m1', 'ok')] }]);
  const top = (prefix: string) => `diff --git a/${prefix}top.txt b/${prefix}top.txt\nindex 422c2b7ab3b3c668038da977e4e93a5fc623169c..55dce135f5939fc45738aec42a917794a39cbfce\n--- a/${prefix}top.txt\n+++ b/${prefix}top.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n`;
  const added = (path: string) => `diff --git a/${path} b/${path}\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..587be6b4c3f93f93c489c0111bba5596147a26cb\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+x\n`;
  const nonl = 'diff --git a/sub/nonl.txt b/sub/nonl.txt\nindex 1b322989b6eea65102d4f5921ccb7df5dc613fe7..206b37888d9b7affbbead76084a0419c3c868078\n--- a/sub/nonl.txt\n+++ b/sub/nonl.txt\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+z\n';
  expect(inRepo.map(({ diff }) => diff)).toEqual([nonl, nonl + added('sub/x.txt') + top(''), nonl + added('sub/x.txt') + top('')]);
  const outside = await diffsOfTurn(join(plain, 'sub'), [patchCall('p1', edits), patchCall('p2', patch('*** Update File: ../top.txt\n@@\n a\n-B\n+b\n')), { kind: 'output', items: [messageItem('m1', 'ok')] }]);
  expect(outside.map(({ diff }) => diff)).toEqual([top(`${plain}/`) + added('x.txt'), added('x.txt'), added('x.txt')]);
});
