#!/usr/bin/env node
// The `thread-host` command line. Each subcommand is imported only when used, so starting
// the app server does not pay for the mock model or the demo.
import { DIST_URL, distPath } from './build-layout.js';
import { builtin } from './lazy-builtin.js';
import { mapStackTraces } from '../common/stack-source-maps.js';
import { UsageError } from './usage-error.js';

// First, so that any stack this process prints names the .ts sources.
mapStackTraces(DIST_URL);

const USAGE = `Usage: thread-host <command> [options]

Commands:
  app-server   Serve the Codex app-server protocol over stdio, WebSocket or a unix socket (alias: serve)
  mock-model   Run a Responses-API mock model on loopback
  demo         Run a scripted session against the embedded model and print the traffic
  fleet        Fleets on PostgreSQL: import and export threads, or start a local fleet to try
  bench        Benchmark app-servers (this one, the reference, …) under lock contention

Run 'thread-host <command> --help' for a command's options.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(USAGE + '\n');
      return command === undefined ? 2 : 0;
    case '--version':
    case '-V':
      process.stdout.write('thread-host 0.1.0\n');
      return 0;
    case 'app-server':
    case 'serve':
      return (await import('./app-server-command.js')).runAppServerCommand(rest);
    case 'mock-model': {
      const { runMockModelCommand } = await import('./commands/mock-model/mock-model-command.js');
      return runMockModelCommand(rest);
    }
    case 'demo': {
      const { runDemo } = await import('./commands/demo.js');
      return runDemo(rest);
    }
    case 'fleet':
      return (await import('./commands/fleet/fleet-command.js')).runFleetCommand(rest);
    case 'bench':
      return runBench(rest);
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

// The bench lives outside the host's source tree and drives servers from outside, so it runs
// as its own process instead of being imported. A terminal's Ctrl-C reaches both; a signal sent
// to this process alone (kill, a supervisor) is passed on, so the bench always gets to reap its
// servers and remove its homes before it exits, and this process exits after it.
async function runBench(args: string[]): Promise<number> {
  const { spawn } = builtin<typeof import('node:child_process')>('node:child_process');
  const entry = distPath('bench/main.js');
  const child = spawn(process.execPath, [...process.execArgv, entry, ...args], { stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve(code ?? (signal === 'SIGINT' ? 130 : 1)));
    });
  } finally {
    process.off('SIGINT', forward);
    process.off('SIGTERM', forward);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Workers and sockets are closed by then; exit explicitly so a stray handle cannot hang us.
    setImmediate(() => process.exit(code));
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`thread-host: ${error.message}\nRun 'thread-host --help' for usage.\n`);
      process.exit(2);
    }
    process.stderr.write(`thread-host: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
