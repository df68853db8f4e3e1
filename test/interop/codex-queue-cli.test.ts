// Opt-in (`npm run test:interop`): the reference's `codex queue --remote URL --thread ID
// --message TEXT --resume` (codex-cli 0.171.0) against thread-host over WebSocket. It adds the
// message with thread/queue/add and resumes the thread; thread-host runs it as a turn of that
// thread, which its rollout then holds, and leaves its queue empty.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import type { Message } from '../helpers/test-server.js';
import { WsServer } from '../helpers/ws-server.js';
import { referenceAndMock } from './reference-and-mock.js';

const reference = referenceAndMock();

test('codex queue --remote --resume queues a message that thread-host runs on the thread', async () => {
  const server = await WsServer.start({ modelUrl: reference.mock.url });
  const client = await server.connect();
  const { thread } = await client.request('thread/start', {});
  const { turn } = await client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hello' }] });
  await client.waitForNotification('turn/completed', (p: Message) => p.turn.id === turn.id);

  // The CLI's own home holds nothing of the thread: everything goes through the remote.
  const cliHome = join(server.home, 'cli-home');
  mkdirSync(cliHome);
  const { stdout } = await promisify(execFile)(reference.codex, ['queue', '--remote', server.baseUrl, '--thread', thread.id, '--message', 'queued from the cli', '--resume'], {
    env: { ...process.env, CODEX_HOME: cliHome },
    timeout: 30_000,
  });
  expect(stdout).toMatch(new RegExp(`^Queued message [0-9a-f-]{36} for thread ${thread.id}\\.\\n$`));

  const item = await client.waitForNotification('item/completed', (p: Message) => p.item.type === 'userMessage' && p.item.content[0].text === 'queued from the cli', 20_000);
  await client.waitForNotification('turn/completed', (p: Message) => p.turn.id === item.turnId, 20_000);
  expect(await client.request('thread/queue/list', { threadId: thread.id })).toEqual({ data: [], nextCursor: null });
  // Recorded as any turn's user message is: its response item and its item_completed.
  const lines = readFileSync(thread.path, 'utf8').split('\n').filter((line) => line.includes('"queued from the cli"'));
  expect(lines.map((line) => [JSON.parse(line).type, JSON.parse(line).payload.type])).toEqual([['response_item', 'message'], ['event_msg', 'item_completed']]);
});
