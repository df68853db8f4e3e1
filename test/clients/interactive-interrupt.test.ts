// Opt-in (`npm run test:clients`): Esc in the reference's interactive client (codex-cli 0.171.0)
// in tmux against thread-host, over WebSocket and a unix socket, while a turn runs (the mock
// model holding its reply back): the turn ends interrupted, and the next message is answered.
import { describe, expect, test } from 'vitest';
import { referenceAndMock } from '../interop/reference-and-mock.js';
import { CodexCli } from './codex-cli.js';
import { startHost, TRANSPORTS } from './host-under-test.js';
import { firstMessage, quit, READY, startInteractive } from './interactive-client.js';
import { answered, settledTurns } from './thread-turns.js';

const reference = referenceAndMock();

describe.each(TRANSPORTS)('over %s', (transport) => {
  test('Esc interrupts the running turn', async () => {
    const host = await startHost(transport, { modelUrl: reference.mock.url });
    const terminal = await startInteractive(new CodexCli(reference.codex), host);
    const threadId = await firstMessage(terminal, host, reference.mock, 'a quick question');

    reference.mock.enqueue({ kind: 'stall', ms: 30_000 });
    await terminal.submit('a question never answered');
    await terminal.waitForText('esc to interrupt');
    terminal.press('Escape');
    const interrupted = { status: 'interrupted', items: ['user: a question never answered'] };
    expect(await settledTurns(host.control, threadId, 2)).toEqual([answered('a quick question'), interrupted]);
    await terminal.waitForText(READY);

    await terminal.submit('one more');
    expect(await settledTurns(host.control, threadId, 3)).toEqual([answered('a quick question'), interrupted, answered('one more')]);
    await quit(terminal, host, threadId);
    expect(await host.server.stop()).toBe(0);
  });
});
