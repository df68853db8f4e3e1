// CommandExecSessions with a runner that never spawns: which session a follow-up reaches, and
// what a terminate or a closed connection does to a command that runs and to one still waiting.
import { expect, test } from 'vitest';
import type { ConnectionId } from '../../../../../src/main/connections.js';
import type { CommandRefusal, CommandRequest, CommandResult, CommandRunner } from '../../../../../src/main/tools/exec/command-runner.js';
import { CommandExecSessions } from '../../../../../src/main/tools/shell/command-exec-sessions.js';

const A = 1 as ConnectionId;
const B = 2 as ConnectionId;
const REQUEST = { argv: ['x'], cwd: '/', env: {}, policy: { type: 'danger-full-access' } } as const;

/** A runner whose commands run until killed; `started` says whether onStarted is called at once. */
function fakeRunner(started = true) {
  const log: string[] = [];
  const runner = {
    run: (request: CommandRequest) =>
      new Promise<CommandResult | CommandRefusal>((resolve) => {
        const end = (how: string) => resolve({ kind: 'refused', reason: 'interrupted', message: how });
        request.signal?.addEventListener('abort', () => end('aborted'), { once: true });
        if (!started) return;
        request.onStarted?.({
          writeStdin: async (bytes) => void log.push(`write ${bytes.toString()}`),
          closeStdin: () => void log.push('closeStdin'),
          interrupt: () => void log.push('interrupt'),
          kill: () => {
            log.push('kill');
            end('killed');
          },
          resize: (size) => void log.push(`resize ${size.rows}x${size.cols}`),
        });
      }),
  } as unknown as CommandRunner;
  return { log, sessions: new CommandExecSessions(async () => runner) };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

test('a follow-up reaches its own connection\'s processId only', async () => {
  const { log, sessions } = fakeRunner();
  const run = sessions.run(A, 'p', { ...REQUEST, stdinPipe: true });
  await settled();
  await expect(sessions.write(B, 'p', Buffer.from('a'), false)).rejects.toThrow('no active command/exec for process id "p"');
  expect(() => sessions.run(A, 'p', REQUEST)).toThrow('duplicate active command/exec process id: "p"');
  expect(await sessions.write(A, 'p', Buffer.from('hi'), true)).toEqual({});
  await expect(sessions.resize(B, 'p', { rows: 3, cols: 4 })).rejects.toThrow('no active command/exec for process id "p"');
  expect(await sessions.resize(A, 'p', { rows: 3, cols: 4 })).toEqual({});
  expect(sessions.terminate(A, 'p')).toEqual({});
  expect(await run).toEqual({ kind: 'refused', reason: 'interrupted', message: 'killed' });
  expect(log).toEqual(['write hi', 'closeStdin', 'resize 3x4', 'kill']);
  // Gone once ended: the id is free again.
  expect(() => sessions.terminate(A, 'p')).toThrow('no active command/exec for process id "p"');
});

test('a closed connection kills its running commands and refuses its waiting ones', async () => {
  const running = fakeRunner();
  const first = running.sessions.run(A, null, REQUEST);
  const other = running.sessions.run(B, 'q', REQUEST);
  await settled();
  running.sessions.connectionClosed(A);
  expect(await first).toMatchObject({ message: 'killed' });
  expect(running.log).toEqual(['kill']);
  running.sessions.killAll();
  expect(await other).toMatchObject({ message: 'killed' });

  const waiting = fakeRunner(/*started*/ false);
  const queued = waiting.sessions.run(A, 'w', REQUEST);
  await settled();
  waiting.sessions.connectionClosed(A);
  expect(await queued).toMatchObject({ message: 'aborted' });
  expect(waiting.log).toEqual([]);
});
