// Opt-in (`npm run test:clients`): editing an earlier message in the reference's interactive
// client (codex-cli 0.171.0) in tmux against thread-host, over WebSocket and a unix socket:
// Esc Esc browses the transcript, ← selects the earlier message, Enter rewinds the thread to
// before it (thread/revert) and puts it back in the composer; sent edited, it is the thread's
// only turn.
import { describe, expect, test } from 'vitest';
import { referenceAndMock } from '../interop/reference-and-mock.js';
import { CodexCli } from './codex-cli.js';
import { pollUntil } from './deadline-poll.js';
import { startHost, TRANSPORTS } from './host-under-test.js';
import { firstMessage, quit, startInteractive } from './interactive-client.js';
import { answered, settledTurns, threadTurns } from './thread-turns.js';

const reference = referenceAndMock();

describe.each(TRANSPORTS)('over %s', (transport) => {
  test('editing an earlier message reverts the thread to before it', async () => {
    const host = await startHost(transport, { modelUrl: reference.mock.url });
    const terminal = await startInteractive(new CodexCli(reference.codex), host);
    const threadId = await firstMessage(terminal, host, reference.mock, 'the first message');
    await terminal.submit('the second message');
    expect(await settledTurns(host.control, threadId, 2)).toEqual([answered('the first message'), answered('the second message')]);
    await terminal.waitFor((screen) => screen.split('• Done').length === 3, 'both replies');

    terminal.press('Escape', 'Escape');
    await terminal.waitForText('Browsing transcript');
    terminal.press('Left');
    terminal.press('Enter');
    await pollUntil(() => threadTurns(host.control, threadId), (turns) => turns.length === 0, {
      deadlineMs: 15_000,
      what: 'the thread reverted to before its first message',
      describe: (turns) => `${JSON.stringify(turns)}\nthe client's screen:\n${terminal.screen()}`,
    });

    terminal.press('C-u');
    await terminal.submit('the first message, edited');
    expect(await settledTurns(host.control, threadId, 1)).toEqual([answered('the first message, edited')]);
    await terminal.waitForText('• Done');
    await quit(terminal, host, threadId);
    expect(await host.server.stop()).toBe(0);
  });
});
