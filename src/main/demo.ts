// `thread-host demo`: shows the host doing its job with no key and no network. It starts
// `thread-host app-server` as a child process in a fresh temporary home (embedded model),
// plays a short client script, and prints every protocol line in both directions.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const STEP_TIMEOUT_MS = 10_000;

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
  const waiting: Array<{ test: (m: Record<string, unknown>) => boolean; resolve: (m: Record<string, unknown>) => void }> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    process.stdout.write(`<- ${line}\n`);
    const message = JSON.parse(line) as Record<string, unknown>;
    const index = waiting.findIndex((w) => w.test(message));
    if (index >= 0) waiting.splice(index, 1)[0]!.resolve(message);
  });
  const until = (test: (m: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the server did not answer in time')), STEP_TIMEOUT_MS);
      waiting.push({ test, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  let nextId = 0;
  const request = async (method: string, params: unknown) => {
    const id = nextId++;
    const reply = until((m) => m.id === id);
    const line = JSON.stringify({ id, method, params });
    process.stdout.write(`-> ${line}\n`);
    child.stdin!.write(line + '\n');
    const message = await reply;
    if (message.error) throw new Error(JSON.stringify(message.error));
    return message.result as Record<string, unknown>;
  };
  try {
    await request('initialize', { clientInfo: { name: 'thread-host-demo', title: null, version: '0.1.0' } });
    child.stdin!.write(JSON.stringify({ method: 'initialized' }) + '\n');
    const started = await request('thread/start', {});
    const threadId = (started.thread as { id: string }).id;
    for (const text of ['Hello there', 'What did I just say?']) {
      const completed = until((m) => m.method === 'turn/completed');
      await request('turn/start', { threadId, input: [{ type: 'text', text }] });
      await completed;
    }
    await request('thread/read', { threadId, includeTurns: true });
    child.stdin!.end();
    const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
    process.stdout.write(`\nserver exited with code ${code}; history was written under ${join(home, 'sessions')} (now removed)\n`);
    return code;
  } catch (error) {
    process.stderr.write(`thread-host demo: ${(error as Error).message}\n`);
    child.kill();
    return 1;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
