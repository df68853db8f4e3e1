// Opt-in (`npm run test:clients`): `codex exec --remote URL "prompt"`, then
// `codex exec --remote URL resume ID "again"` (codex-cli 0.171.0) against thread-host, over
// WebSocket and over a unix socket: both exit 0 with the model's reply printed, the thread
// thread-host reads back afterwards holds exactly the two turns, and its one rollout is in
// thread-host's home. `--remote unix://` alone finds thread-host's default control socket.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { WsServer } from '../helpers/ws-server.js';
import { referenceAndMock } from '../interop/reference-and-mock.js';
import { CodexCli, execThreadId, execTranscript } from './codex-cli.js';
import { startHost, TRANSPORTS } from './host-under-test.js';
import { answered, threadTurns } from './thread-turns.js';

const reference = referenceAndMock();

describe.each(TRANSPORTS)('over %s', (transport) => {
  test('codex exec starts a thread and codex exec resume continues it', async () => {
    const host = await startHost(transport, { modelUrl: reference.mock.url });
    const cli = new CodexCli(reference.codex);

    const first = await cli.run(['exec', '--remote', host.remote, 'hello over the remote']);
    const threadId = execThreadId(first);
    expect(first).toEqual({ code: 0, stdout: 'Done\n', stderr: execTranscript(threadId) });

    const again = await cli.run(['exec', '--remote', host.remote, 'resume', threadId, 'again']);
    // Given its prompt as an argument, resume reads no stdin and says nothing of it.
    expect(again).toEqual({ code: 0, stdout: 'Done\n', stderr: execTranscript(threadId).replace('Reading additional input from stdin...\n', '') });

    expect(await threadTurns(host.control, threadId)).toEqual([answered('hello over the remote'), answered('again')]);
    // The one rollout is in thread-host's home; the client's own home holds no thread.
    const { thread } = await host.control.request('thread/read', { threadId });
    const sessions = join(host.server.home, 'sessions');
    expect(readdirSync(sessions, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.jsonl')).map((file) => join(sessions, file))).toEqual([thread.path]);
    const lines = readFileSync(thread.path, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line));
    const messages = lines.filter((line) => line.type === 'response_item' && line.payload.type === 'message');
    expect(messages.map((line) => [line.payload.role, line.payload.content.map((part: { text: string }) => part.text).join('')])).toEqual([
      ['user', 'hello over the remote'],
      ['assistant', 'Done'],
      ['user', 'again'],
      ['assistant', 'Done'],
    ]);
    expect(existsSync(join(cli.home, 'sessions'))).toBe(false);
    const { data } = await host.control.request('thread/list', {});
    expect(data.map((thread: { id: string; preview: string }) => [thread.id, thread.preview])).toEqual([[threadId, 'hello over the remote']]);
    expect(await host.server.stop()).toBe(0);
  });
});

test('codex exec --remote unix:// reaches thread-host on the default control socket of a shared home', async () => {
  const server = await WsServer.start({ listen: 'unix://', modelUrl: reference.mock.url });
  const cli = new CodexCli(reference.codex);
  // `unix://` alone is $CODEX_HOME/app-server-control/app-server-control.sock, for both.
  const run = await cli.run(['exec', '--remote', 'unix://', 'over the default socket'], { CODEX_HOME: server.home });
  const threadId = execThreadId(run);
  expect(run).toEqual({ code: 0, stdout: 'Done\n', stderr: execTranscript(threadId) });
  expect(await threadTurns(await server.connect(), threadId)).toEqual([answered('over the default socket')]);
  expect(await server.stop()).toBe(0);
});
