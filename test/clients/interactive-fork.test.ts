// Opt-in (`npm run test:clients`): `/fork` in the reference's interactive client (codex-cli
// 0.171.0) in tmux against thread-host, over WebSocket and a unix socket: the client goes on in
// a copy of the thread (thread/fork), which holds the original's turns and then its own, while
// the original keeps only its own.
import { describe, expect, test } from 'vitest';
import { referenceAndMock } from '../interop/reference-and-mock.js';
import { CodexCli } from './codex-cli.js';
import { startHost, TRANSPORTS } from './host-under-test.js';
import { firstMessage, quit, startInteractive, threadsOnceListed } from './interactive-client.js';
import { answered, settledTurns } from './thread-turns.js';

const reference = referenceAndMock();

describe.each(TRANSPORTS)('over %s', (transport) => {
  test('/fork goes on in a copy of the thread', async () => {
    const host = await startHost(transport, { modelUrl: reference.mock.url });
    const terminal = await startInteractive(new CodexCli(reference.codex), host);
    const original = await firstMessage(terminal, host, reference.mock, 'before the fork');

    await terminal.submit('/fork');
    const fork = (await threadsOnceListed(host, terminal, 2)).find((thread) => thread.id !== original)!;
    const { thread } = await host.control.request('thread/read', { threadId: fork.id });
    expect(thread.forkedFromId).toBe(original);
    expect(await settledTurns(host.control, fork.id, 1)).toEqual([answered('before the fork')]);

    await terminal.submit('after the fork');
    expect(await settledTurns(host.control, fork.id, 2)).toEqual([answered('before the fork'), answered('after the fork')]);
    expect(await settledTurns(host.control, original, 1)).toEqual([answered('before the fork')]);
    await terminal.waitForText('• Done');
    await quit(terminal, host, fork.id);
    expect(await host.server.stop()).toBe(0);
  });
});
