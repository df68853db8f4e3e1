// Opt-in (`npm run test:clients`): the reference's interactive client (codex-cli 0.171.0) in
// tmux against thread-host, over WebSocket and a unix socket: `/new` starts a second thread,
// `/resume` lists thread-host's threads and one the reference itself wrote in the same home
// (its own app-server, run there while thread-host serves it), and resuming that one
// continues it.
import { describe, expect, test } from 'vitest';
import { TestServer } from '../helpers/test-server.js';
import { referenceAndMock } from '../interop/reference-and-mock.js';
import { CodexCli } from './codex-cli.js';
import { startHost, TRANSPORTS } from './host-under-test.js';
import { quit, READY, startInteractive, threadsOnceListed } from './interactive-client.js';
import { answered, settledTurns } from './thread-turns.js';

const reference = referenceAndMock();

/** A thread with one answered turn, written by the reference's app-server into `home`. */
async function writtenByTheReference(home: string): Promise<string> {
  const server = await TestServer.start({ home, keepConfig: true, command: [reference.codex, 'app-server', '--listen', 'stdio://'] });
  const { thread } = await server.request('thread/start', {});
  await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'written by the reference' }] });
  await server.waitForNotification('turn/completed');
  expect(await server.close()).toBe(0);
  return thread.id;
}

/** The rows of the resume picker (age, then title): each title, the selected one marked `> `. */
function pickerRows(screen: string): string[] {
  const lines = screen.split('\n');
  const rows = lines.slice(lines.findIndex((line) => line.includes('Type to search')) + 1, lines.findIndex((line) => line.startsWith('────')));
  return rows.filter((row) => row !== '').map((row) => {
    const [, selected, title] = /^\s*(›)?\s*(?:\S+ ago|now)\s+(.*)$/.exec(row) ?? [undefined, undefined, `unparsed: ${row}`];
    return `${selected === undefined ? '' : '> '}${title}`;
  });
}

describe.each(TRANSPORTS)('over %s', (transport) => {
  test('/new starts another thread; /resume lists every thread and resumes the one the reference wrote', async () => {
    const host = await startHost(transport, { modelUrl: reference.mock.url });
    const written = await writtenByTheReference(host.server.home);
    const terminal = await startInteractive(new CodexCli(reference.codex), host);

    await terminal.submit('in the first thread');
    const [first] = await threadsOnceListed(host, terminal, 2);
    expect(await settledTurns(host.control, first!.id, 1)).toEqual([answered('in the first thread')]);
    await terminal.waitForText('• Done');

    await terminal.submit('/new');
    await terminal.waitFor((screen) => screen.includes(READY) && !screen.includes('in the first thread'), 'a new thread');
    await terminal.submit('in the second thread');
    const [second] = await threadsOnceListed(host, terminal, 3);
    expect(await settledTurns(host.control, second!.id, 1)).toEqual([answered('in the second thread')]);
    await terminal.waitForText('• Done');

    await terminal.submit('/resume');
    const picker = await terminal.waitFor((screen) => pickerRows(screen).length === 3, 'the resume picker');
    expect(pickerRows(picker)).toEqual(['> in the second thread', 'in the first thread', 'written by the reference']);
    terminal.press('Down', 'Down');
    await terminal.waitFor((screen) => pickerRows(screen)[2] === '> written by the reference', 'the reference thread selected');
    terminal.press('Enter');
    await terminal.waitFor((screen) => screen.includes('› written by the reference') && screen.includes(READY), 'the resumed thread');

    await terminal.submit('continued through thread-host');
    expect(await settledTurns(host.control, written, 2)).toEqual([answered('written by the reference'), answered('continued through thread-host')]);
    await terminal.waitForText('• Done');
    await quit(terminal, host, written);
    expect(await host.server.stop()).toBe(0);
  });
});
