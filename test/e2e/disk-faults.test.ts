// The disk failing under a running host: a home it may not write, a disk that fills up in the
// middle of an append, a rollout deleted under a loaded thread. Each gives the client a clear
// error (or, for the deletion, nothing to lose), a line in the log, no crash, and never loses
// or corrupts what was already acknowledged.
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { parseRollout } from '../../src/common/rollout/rollout-reader.js';
import { TestServer, type Message } from '../helpers/test-server.js';

// Permission bits do not bind root, and CI may run as root; so "cannot write" is made the
// same way for every user: a regular file stands where the host must create a directory.
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function newHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-disk-'));
  homes.push(home);
  return home;
}

async function runTurn(server: TestServer, threadId: string, text: string): Promise<Message> {
  const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text }] });
  return (await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id)).turn;
}



function failure(message: string): Message {
  return { message, codexErrorInfo: 'other', additionalDetails: null, misalignment: null };
}

test('a home where the lock directory cannot be created refuses thread/start with the reason, and the server keeps serving', async () => {
  const home = newHome();
  writeFileSync(join(home, 'config.toml'), '');
  writeFileSync(join(home, 'thread-writer-locks'), 'not a directory');
  const server = await TestServer.start({ home, keepConfig: true });
  const refused = await server.requestRaw('thread/start', {});
  const reason = `EEXIST: file already exists, mkdir '${join(home, 'thread-writer-locks')}'`;
  expect(refused.error).toEqual({ code: -32603, message: `thread/start failed with message: ${reason}` });
  const logged = await server.waitForLog((l) => l.msg === 'thread failed to load');
  expect([logged.level, logged.error]).toEqual(['warn', reason]);
  // An ephemeral thread needs no disk, and is served.
  const { thread } = await server.request('thread/start', { ephemeral: true });
  expect((await runTurn(server, thread.id, 'still here')).status).toBe('completed');
  expect(await server.close()).toBe(0);
});

test('a home where the rollout cannot be created fails that turn, and the next turn writes it once it can', async () => {
  const home = newHome();
  const server = await TestServer.start({ home });
  const { thread } = await server.request('thread/start', {});
  writeFileSync(join(home, 'sessions'), 'not a directory');
  const failed = await runTurn(server, thread.id, 'first');
  const reason = `failed to open rollout ${thread.path}: ENOTDIR: not a directory, mkdir '${dirname(thread.path)}'`;
  expect([failed.status, failed.error]).toEqual(['failed', failure(`failed to record the turn in the thread history: ${reason}`)]);
  const logged = await server.waitForLog((l) => l.msg === 'turn could not be written to the rollout');
  expect([logged.level, logged.threadId, logged.turnId]).toEqual(['error', thread.id, failed.id]);

  unlinkSync(join(home, 'sessions'));
  const second = await runTurn(server, thread.id, 'second');
  expect(second.status).toBe('completed');
  // The rollout starts with its session_meta and holds the turn that was acknowledged.
  const text = readFileSync(thread.path, 'utf8');
  expect(JSON.parse(text.split('\n')[0]!).type).toBe('session_meta');
  expect(parseRollout(text).turns.map((t) => [t.id, t.status])).toEqual([[second.id, 'completed']]);
  expect(await server.close()).toBe(0);
});

test('a disk that fills up mid-turn fails the turn with ENOSPC, leaves no torn line, and the rollout records the failure once space is back', async () => {
  const home = newHome();
  const flag = join(home, 'disk-full');
  const server = await TestServer.start({ home, env: { THREAD_HOST_FAULT_DISK_FULL_FLAG: flag } });
  const { thread } = await server.request('thread/start', {});
  const first = await runTurn(server, thread.id, 'first');
  const acknowledged = readFileSync(thread.path, 'utf8');

  // One more write fits (the turn's start); the agent message's write is cut short.
  writeFileSync(flag, '1');
  const second = await runTurn(server, thread.id, 'second');
  const message = `failed to record the turn in the thread history: failed to write to rollout ${thread.path}: ENOSPC: no space left on device, write`;
  expect([second.status, second.error]).toEqual(['failed', failure(message)]);
  expect(server.notifications('error').map((m) => m.params)).toEqual([{ error: failure(message), willRetry: false, threadId: thread.id, turnId: second.id }]);
  const logged = await server.waitForLog((l) => l.msg === 'turn could not be written to the rollout');
  expect([logged.level, logged.threadId, logged.turnId]).toEqual(['error', thread.id, second.id]);
  // What was acknowledged is untouched, and the half-written line was cut back off.
  const during = readFileSync(thread.path, 'utf8');
  expect(during.startsWith(acknowledged) && during.endsWith('\n')).toBe(true);
  expect(during.slice(acknowledged.length).trimEnd().split('\n').map((line) => JSON.parse(line).type)).toEqual(['event_msg', 'turn_context', 'response_item', 'event_msg']);

  unlinkSync(flag);
  const third = await runTurn(server, thread.id, 'third');
  expect(third.status).toBe('completed');
  // The failed turn is closed in the file as the client was told, before the next one.
  const parsed = parseRollout(readFileSync(thread.path, 'utf8'));
  expect([parsed.skippedLines, parsed.turns.map((t) => [t.id, t.status, t.error])]).toEqual([
    0,
    [
      [first.id, 'completed', null],
      [second.id, 'failed', failure(message)],
      [third.id, 'completed', null],
    ],
  ]);
  expect(await server.close()).toBe(0);
});

test('a rollout deleted under a loaded thread is recreated whole at the next append, and the client and the log are told', async () => {
  const home = newHome();
  const server = await TestServer.start({ home });
  const { thread } = await server.request('thread/start', {});
  const first = await runTurn(server, thread.id, 'first');
  const acknowledged = readFileSync(thread.path, 'utf8');
  unlinkSync(thread.path);

  const second = await runTurn(server, thread.id, 'second');
  expect(second.status).toBe('completed');
  const text = readFileSync(thread.path, 'utf8');
  expect(text.startsWith(acknowledged)).toBe(true);
  expect(parseRollout(text).turns.map((t) => [t.id, t.status])).toEqual([
    [first.id, 'completed'],
    [second.id, 'completed'],
  ]);
  const logged = await server.waitForLog((l) => l.msg.startsWith(`rollout ${thread.path} was deleted`));
  expect([logged.level, logged.threadId, logged.msg]).toEqual([
    'warn',
    thread.id,
    `rollout ${thread.path} was deleted while the thread was loaded; recreated it from the open file (${Buffer.byteLength(acknowledged)} bytes)`,
  ]);
  expect(server.notifications('warning').map((m) => m.params)).toEqual([{ threadId: thread.id, message: logged.msg }]);
  expect(await server.close()).toBe(0);
});

test('a rollout deleted under a thread that then unloads is recreated before the file is closed, and resumes whole', async () => {
  const home = newHome();
  const server = await TestServer.start({ home, rootConfig: 'thread_unload_delay_secs = 0' });
  const { thread } = await server.request('thread/start', {});
  const first = await runTurn(server, thread.id, 'first');
  unlinkSync(thread.path);
  expect(await server.request('thread/unsubscribe', { threadId: thread.id })).toEqual({ status: 'unsubscribed' });
  await server.waitForNotification('thread/closed', (p) => p.threadId === thread.id);
  expect(existsSync(thread.path)).toBe(true);

  const resumed = await server.request('thread/resume', { threadId: thread.id });
  expect(resumed.thread.turns.map((t: Message) => [t.id, t.status])).toEqual([[first.id, 'completed']]);
  expect(await server.close()).toBe(0);
});
