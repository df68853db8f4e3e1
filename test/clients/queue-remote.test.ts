// Opt-in (`npm run test:clients`): `codex queue --remote URL --thread ID --message TEXT`
// (codex-cli 0.171.0) against thread-host over WebSocket and a unix socket. Queued for a
// thread that is not loaded, the message waits, across a restart of thread-host; a second
// one queued with `--resume` loads the thread, and both run in order as its next turns.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { referenceAndMock } from '../interop/reference-and-mock.js';
import { CodexCli, execThreadId, queuedId } from './codex-cli.js';
import { pollUntil } from './deadline-poll.js';
import { startHost, TRANSPORTS, type HostUnderTest } from './host-under-test.js';
import { answered, settledTurns, threadTurns } from './thread-turns.js';

const reference = referenceAndMock();

const queuedTexts = async (host: HostUnderTest, threadId: string): Promise<Array<[string, string]>> => {
  const { data, nextCursor } = await host.control.request('thread/queue/list', { threadId });
  expect(nextCursor).toBe(null);
  return data.map((queued: { id: string; input: Array<{ text: string }> }) => [queued.id, queued.input.map((part) => part.text).join('')]);
};

describe.each(TRANSPORTS)('over %s', (transport) => {
  test('codex queue keeps a message for an unloaded thread; codex queue --resume runs both', async () => {
    const home = mkdtempSync(join(tmpdir(), 'thread-host-clients-home-'));
    onTestFinished(() => rmSync(home, { recursive: true, force: true }));
    // Unloaded as soon as no client holds it, so the first message only waits.
    const options = { home, modelUrl: reference.mock.url, rootConfig: 'thread_unload_delay_secs = 0' };
    const first = await startHost(transport, options);
    const cli = new CodexCli(reference.codex);
    const threadId = execThreadId(await cli.run(['exec', '--remote', first.remote, 'before the queue']));
    const loaded = () => first.control.request('thread/loaded/list', {});
    await pollUntil(loaded, (page) => page.data.length === 0, { deadlineMs: 10_000, what: 'unload after codex exec' });

    const waiting = queuedId(await cli.run(['queue', '--remote', first.remote, '--thread', threadId, '--message', 'queued while unloaded']), threadId);
    expect(await queuedTexts(first, threadId)).toEqual([[waiting, 'queued while unloaded']]);
    expect(await threadTurns(first.control, threadId)).toEqual([answered('before the queue')]);
    expect(await first.server.stop()).toBe(0);

    // The default unload delay from here: with none, the thread could unload between the two
    // queued turns once `codex queue` has left (the reference then aborts the second).
    const second = await startHost(transport, { home, modelUrl: reference.mock.url });
    expect(await queuedTexts(second, threadId)).toEqual([[waiting, 'queued while unloaded']]);
    queuedId(await cli.run(['queue', '--remote', second.remote, '--thread', threadId, '--message', 'queued with resume', '--resume']), threadId);
    expect(await settledTurns(second.control, threadId, 3)).toEqual([
      answered('before the queue'),
      answered('queued while unloaded'),
      answered('queued with resume'),
    ]);
    expect(await queuedTexts(second, threadId)).toEqual([]);
    expect(await second.server.stop()).toBe(0);
  });
});
