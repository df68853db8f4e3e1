// Opt-in (`npm run test:clients`): the reference's interactive client, `codex --remote URL`
// (codex-cli 0.171.0), in tmux against thread-host over WebSocket and a unix socket: a message
// and its reply, `/rename`, `/compact`, `/quit`; each step checked in the thread thread-host
// reads back.
import { describe, expect, test } from 'vitest';
import { referenceAndMock } from '../interop/reference-and-mock.js';
import { CodexCli } from './codex-cli.js';
import { startHost, TRANSPORTS } from './host-under-test.js';
import { firstMessage, listedThreads, quit, READY, startInteractive } from './interactive-client.js';
import { answered, settledTurns } from './thread-turns.js';

const reference = referenceAndMock();

describe.each(TRANSPORTS)('over %s', (transport) => {
  test('a message and its reply, /rename, /compact, /quit', async () => {
    const host = await startHost(transport, { modelUrl: reference.mock.url });
    const terminal = await startInteractive(new CodexCli(reference.codex), host);

    const threadId = await firstMessage(terminal, host, reference.mock, 'hello from the terminal');

    await terminal.submit('/rename');
    await terminal.waitForText('Rename thread');
    terminal.press('C-u');
    await terminal.submit('Renamed in the terminal');
    await terminal.waitForText('· Renamed in the terminal');
    expect(await listedThreads(host)).toEqual([{ id: threadId, name: 'Renamed in the terminal', preview: 'hello from the terminal' }]);

    await terminal.submit('/compact');
    await terminal.waitForText('Context compacted');
    expect(await settledTurns(host.control, threadId, 2)).toEqual([answered('hello from the terminal'), { status: 'completed', items: ['contextCompaction'] }]);
    await terminal.waitForText(READY);

    await quit(terminal, host, threadId);
    expect(await host.server.stop()).toBe(0);
  });
});
