// Opt-in (`npm run test:clients`): the reference's interactive client (codex-cli 0.171.0) in
// tmux against thread-host, over WebSocket and a unix socket: a message typed while a turn runs
// (the mock model holding its reply back) steers that turn, which then answers both; typed and
// sent with Tab instead, it waits and runs as the next turn.
import { describe, expect, test } from 'vitest';
import { referenceAndMock } from '../interop/reference-and-mock.js';
import { CodexCli } from './codex-cli.js';
import { startHost, TRANSPORTS } from './host-under-test.js';
import { firstMessage, quit, startInteractive } from './interactive-client.js';
import { answered, settledTurns, threadTurns } from './thread-turns.js';

const reference = referenceAndMock();

describe.each(TRANSPORTS)('over %s', (transport) => {
  test('typing while a turn runs steers it', async () => {
    const host = await startHost(transport, { modelUrl: reference.mock.url });
    const terminal = await startInteractive(new CodexCli(reference.codex), host);
    // The first message also has the client ask the model for a title: answered at once.
    const threadId = await firstMessage(terminal, host, reference.mock, 'a quick question');

    reference.mock.enqueue({ kind: 'stall', ms: 5_000 });
    await terminal.submit('a slow question');
    await terminal.waitForText('esc to interrupt');
    expect(await threadTurns(host.control, threadId)).toEqual([answered('a quick question'), { status: 'inProgress', items: ['user: a slow question'] }]);
    await terminal.submit('steered in while it runs');
    expect(await settledTurns(host.control, threadId, 2)).toEqual([
      answered('a quick question'),
      { status: 'completed', items: ['user: a slow question', 'user: steered in while it runs', 'agent: Done'] },
    ]);
    await quit(terminal, host, threadId);
    expect(await host.server.stop()).toBe(0);
  });

  test('Tab queues a message typed while a turn runs; it runs as the next turn', async () => {
    const host = await startHost(transport, { modelUrl: reference.mock.url });
    const terminal = await startInteractive(new CodexCli(reference.codex), host);
    const threadId = await firstMessage(terminal, host, reference.mock, 'a quick question');

    reference.mock.enqueue({ kind: 'stall', ms: 3_000 });
    await terminal.submit('a slow question');
    await terminal.waitForText('esc to interrupt');
    await terminal.type('queued while it runs');
    terminal.press('Tab');
    expect(await settledTurns(host.control, threadId, 3)).toEqual([answered('a quick question'), answered('a slow question'), answered('queued while it runs')]);
    expect(await host.control.request('thread/queue/list', { threadId })).toEqual({ data: [], nextCursor: null });
    await quit(terminal, host, threadId);
    expect(await host.server.stop()).toBe(0);
  });
});
