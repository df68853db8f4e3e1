// `thread-host demo`: shows the host doing its job with no key and no network. It starts
// `thread-host app-server` as a child process in a fresh temporary home (embedded model),
// plays a short client script, and prints every protocol line in both directions.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChildStdioTransport } from '../../client/child-stdio-transport.js';
import { RpcConnection } from '../../client/rpc-connection.js';

const STEP_TIMEOUT_MS = 10_000;
const EXIT_GRACE_MS = 5_000;

export async function runDemo(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write('Usage: thread-host demo\n\nStarts the app server on a temporary home with the embedded model,\nruns initialize, thread/start, two streamed turns and thread/read, and prints the traffic.\n');
    return 0;
  }
  if (args.length > 0) {
    process.stderr.write(`thread-host demo: unexpected argument '${args[0]}'\nRun 'thread-host demo --help' for usage.\n`);
    return 2;
  }
  const home = mkdtempSync(join(tmpdir(), 'thread-host-demo-'));
  const cli = fileURLToPath(new URL('./cli.js', import.meta.url));
  const child = spawn(process.execPath, [cli, 'app-server', '--listen', 'stdio://'], {
    env: { ...process.env, THREAD_HOST_HOME: home, CODEX_HOME: home },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const transport = new ChildStdioTransport(child);
  const server = new RpcConnection(transport);
  server.trace = (direction, text) => process.stdout.write(`${direction} ${text}\n`);
  try {
    await server.initialize({ clientInfo: { name: 'thread-host-demo', title: null, version: '0.1.0' } }, STEP_TIMEOUT_MS);
    const started = await server.request('thread/start', {}, STEP_TIMEOUT_MS);
    const threadId = (started.thread as { id: string }).id;
    for (const text of ['Hello there', 'What did I just say?']) {
      const completed = server.waitForNotification('turn/completed', () => true, STEP_TIMEOUT_MS);
      await server.request('turn/start', { threadId, input: [{ type: 'text', text }] }, STEP_TIMEOUT_MS);
      await completed;
    }
    await server.request('thread/read', { threadId, includeTurns: true }, STEP_TIMEOUT_MS);
    await transport.close(EXIT_GRACE_MS);
    const code = child.exitCode ?? 1;
    process.stdout.write(`\nserver exited with code ${code}; history was written under ${join(home, 'sessions')} (now removed)\n`);
    return code;
  } catch (error) {
    process.stderr.write(`thread-host demo: ${(error as Error).message}\n`);
    transport.kill();
    return 1;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
