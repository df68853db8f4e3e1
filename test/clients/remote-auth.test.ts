// Opt-in (`npm run test:clients`): `--remote-auth-token-env VAR` of `codex exec` and
// `codex queue` (codex-cli 0.171.0) with each of thread-host's WebSocket auth modes: the
// capability token and a signed bearer token (HS256 JWT with issuer and audience). The token
// in VAR gets in; without it the client is refused and the thread is left as it was.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, describe, expect, test } from 'vitest';
import { referenceAndMock } from '../interop/reference-and-mock.js';
import { CodexCli, execThreadId, execTranscript, queuedId } from './codex-cli.js';
import { startHost } from './host-under-test.js';
import { answered, settledTurns } from './thread-turns.js';

const reference = referenceAndMock();
const dir = mkdtempSync(join(tmpdir(), 'thread-host-clients-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CAPABILITY_TOKEN = 'capability-token-for-the-clients';
const SECRET = 'a-shared-secret-of-at-least-32-bytes, for the clients';
writeFileSync(join(dir, 'token'), `${CAPABILITY_TOKEN}\n`);
writeFileSync(join(dir, 'secret'), `${SECRET}\n`);

const signedToken = (): Promise<string> =>
  new SignJWT({ iss: 'thread-host-tests', aud: 'codex-clients', exp: Math.floor(Date.now() / 1000) + 600 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(SECRET));

const MODES = [
  { mode: 'capability token', args: ['--ws-auth', 'capability-token', '--ws-token-file', join(dir, 'token')], token: async () => CAPABILITY_TOKEN },
  {
    mode: 'signed bearer token',
    args: ['--ws-auth', 'signed-bearer-token', '--ws-shared-secret-file', join(dir, 'secret'), '--ws-issuer', 'thread-host-tests', '--ws-audience', 'codex-clients'],
    token: signedToken,
  },
];

describe.each(MODES)('$mode', ({ args, token }) => {
  test('codex exec and codex queue send the token from --remote-auth-token-env; without it they are refused', async () => {
    const bearer = await token();
    const host = await startHost('ws', { modelUrl: reference.mock.url, args, controlHeaders: { authorization: `Bearer ${bearer}` } });
    const cli = new CodexCli(reference.codex);
    const withToken = ['--remote', host.remote, '--remote-auth-token-env', 'THREAD_HOST_TOKEN'];
    const env = { THREAD_HOST_TOKEN: bearer };

    const exec = await cli.run(['exec', ...withToken, 'hello with a token'], env);
    const threadId = execThreadId(exec);
    expect(exec).toEqual({ code: 0, stdout: 'Done\n', stderr: execTranscript(threadId) });
    queuedId(await cli.run(['queue', ...withToken, '--thread', threadId, '--message', 'queued with a token', '--resume'], env), threadId);
    expect(await settledTurns(host.control, threadId, 2)).toEqual([answered('hello with a token'), answered('queued with a token')]);

    const refused = await cli.run(['exec', '--remote', host.remote, 'resume', threadId, 'no token']);
    const unauthorized = `failed to connect to remote app server at \`${host.remote}/\`: HTTP error: 401 Unauthorized\n`;
    expect(refused).toEqual({ code: 1, stdout: '', stderr: `Error: ${unauthorized}` });
    const wrong = await cli.run(['queue', ...withToken, '--thread', threadId, '--message', 'wrong token'], { THREAD_HOST_TOKEN: `${bearer}x` });
    // codex queue words it with one more prefix.
    expect(wrong).toEqual({ code: 1, stdout: '', stderr: `Error: failed to connect to remote app server: ${unauthorized}` });
    expect(await settledTurns(host.control, threadId, 2)).toEqual([answered('hello with a token'), answered('queued with a token')]);
    expect(await host.control.request('thread/queue/list', { threadId })).toEqual({ data: [], nextCursor: null });
    expect(await host.server.stop()).toBe(0);
  });
});
