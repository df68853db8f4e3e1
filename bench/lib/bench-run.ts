// Runs one bench script's body under a hard wall-clock deadline. Whatever happens (success,
// error, deadline, Ctrl-C) every process the bench spawned is killed before exit, so a run
// never leaves a server or a flock holder behind.
import { killAllChildren } from './children.js';

const EXIT_GRACE_MS = 1_000;

export function runBench(name: string, deadlineMs: number, body: () => Promise<void>): void {
  const watchdog = setTimeout(() => {
    process.stderr.write(`${name}: deadline of ${deadlineMs} ms passed; killing children\n`);
    killAllChildren();
    process.exit(124);
  }, deadlineMs);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAllChildren();
      process.exit(130);
    });
  }
  process.once('exit', () => killAllChildren()); // last resort; synchronous by design
  const finish = (): void => {
    clearTimeout(watchdog);
    killAllChildren();
    // A handle left open by mistake (a socket, a port) must not turn a finished run into a hang.
    setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
  };
  body().then(finish, (error: unknown) => {
    process.stderr.write(`${name} failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    process.exitCode = 1;
    finish();
  });
}
