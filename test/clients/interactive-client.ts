// The reference's interactive client, `codex --remote URL`, in a terminal (tmux) against a
// host under test, with what its tests share: starting it, the threads it made, quitting.
import { expect } from 'vitest';
import type { MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import type { CodexCli } from './codex-cli.js';
import { pollUntil } from './deadline-poll.js';
import type { HostUnderTest } from './host-under-test.js';
import { answered, settledTurns } from './thread-turns.js';
import { TmuxTerminal } from './tmux-terminal.js';

/** The composer's placeholder: shown when the client is ready for a message. */
export const READY = 'Ask Codex to do anything';

export async function startInteractive(cli: CodexCli, host: HostUnderTest): Promise<TmuxTerminal> {
  const terminal = new TmuxTerminal([cli.binary, '--remote', host.remote], { cwd: cli.home, env: cli.ownEnv() });
  await terminal.waitForText(READY, 30_000);
  return terminal;
}

/** The threads thread-host lists (id, name, preview), newest first, all on one page. */
export async function listedThreads(host: HostUnderTest): Promise<Array<{ id: string; name: string | null; preview: string }>> {
  const { data, nextCursor } = await host.control.request('thread/list', {});
  expect(nextCursor).toBe(null);
  return data.map((thread: { id: string; name: string | null; preview: string }) => ({ id: thread.id, name: thread.name, preview: thread.preview }));
}

/** `/quit`: the client exits 0, its last words how to come back to the thread, no error shown. */
export async function quit(terminal: TmuxTerminal, host: HostUnderTest, threadId: string): Promise<void> {
  await terminal.submit('/quit');
  expect(await terminal.exitStatus()).toBe(0);
  const transcript = terminal.transcript();
  // The client marks a failure with ■; none in all it showed.
  expect(transcript.split('\n').filter((line) => /■|error/i.test(line))).toEqual([]);
  // A WebSocket address is printed as a URL (with its path), a unix socket's as given.
  const remote = host.remote.startsWith('ws:') ? `${host.remote}/` : host.remote;
  expect(transcript.slice(transcript.lastIndexOf('\nDisconnected from this task.') + 1)).toEqual([
    'Disconnected from this task. Any running work continues.',
    'To reconnect, run:',
    `  codex --remote ${remote} resume ${threadId}`,
    `Stop the current turn: run codex --remote ${remote} agents, select this task, and press x.`,
  ].join('\n'));
}

/** The threads thread-host lists once there are `count`; a failure shows the client's screen. */
export function threadsOnceListed(host: HostUnderTest, terminal: TmuxTerminal, count: number): ReturnType<typeof listedThreads> {
  return pollUntil(() => listedThreads(host), (threads) => threads.length === count, {
    deadlineMs: 15_000,
    what: `${count} threads in thread/list`,
    describe: (threads) => `${JSON.stringify(threads)}\nthe client's screen:\n${terminal.screen()}`,
  });
}

/**
 * A new client's first message, in a host with no thread yet: the new thread's id, once
 * answered and once the client has had the model title the thread (a second request), so that
 * what a test queues in the mock next goes to the test's own turn.
 */
export async function firstMessage(terminal: TmuxTerminal, host: HostUnderTest, mock: MockModel, text: string): Promise<string> {
  const modelRequests = (): number => mock.requests.filter((request) => request.path.endsWith('/responses')).length;
  const before = modelRequests();
  await terminal.submit(text);
  const [thread] = await threadsOnceListed(host, terminal, 1);
  expect(await settledTurns(host.control, thread!.id, 1)).toEqual([answered(text)]);
  await terminal.waitForText('• Done');
  await pollUntil(modelRequests, (count) => count === before + 2, { deadlineMs: 10_000, what: 'the turn and the title requests' });
  return thread!.id;
}
