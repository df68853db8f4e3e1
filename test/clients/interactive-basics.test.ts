// Opt-in (`npm run test:clients`): the reference's interactive client, `codex --remote URL`
// (codex-cli 0.171.0), in tmux against thread-host over WebSocket and a unix socket: a message
// and its reply, `/rename`, `/compact`, `/quit`; each step checked in the thread thread-host
// reads back; and no warning that the server is older than the client.
import { describe, expect, test } from 'vitest';
import { referenceAndMock } from '../interop/reference-and-mock.js';
import { CodexCli } from './codex-cli.js';
import { startHost, TRANSPORTS } from './host-under-test.js';
import { firstMessage, listedThreads, quit, READY, startInteractive } from './interactive-client.js';
import type { TmuxTerminal } from './tmux-terminal.js';
import { answered, settledTurns } from './thread-turns.js';

const reference = referenceAndMock();

/** Every warning the client lists at startup (f2), each as its screen shows it. */
async function startupWarnings(terminal: TmuxTerminal): Promise<string[]> {
  const count = /(\d+) warnings? · f2 to view/.exec(terminal.screen());
  if (count === null) return [];
  terminal.press('F2');
  const warnings: string[] = [];
  for (let at = 1; at <= Number(count[1]); at += 1) {
    warnings.push(await terminal.waitForText(`Warnings · ${at} of ${count[1]}`));
    terminal.press('Right');
  }
  terminal.press('Escape');
  await terminal.waitForText(READY);
  return warnings;
}

describe.each(TRANSPORTS)('over %s', (transport) => {
  test('a message and its reply, /rename, /compact, /quit', async () => {
    const host = await startHost(transport, { modelUrl: reference.mock.url });
    const terminal = await startInteractive(new CodexCli(reference.codex), host);
    // The client warns of a server older than itself from initialize's userAgent: no warning of
    // its startup ones (this machine's own, such as a missing sandbox tool, may be there) is that.
    expect(await startupWarnings(terminal)).not.toContainEqual(expect.stringContaining('older than'));

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
