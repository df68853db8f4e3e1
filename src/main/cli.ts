#!/usr/bin/env node
// The `thread-host` command line. Each subcommand is imported only when used, so starting
// the app server does not pay for the mock model or the demo.
import { parseArgs } from 'node:util';

const USAGE = `Usage: thread-host <command> [options]

Commands:
  app-server   Serve the Codex app-server protocol over stdio, WebSocket or a unix socket (alias: serve)
  mock-model   Run a Responses-API mock model on loopback
  demo         Run a scripted session against the embedded model and print the traffic
  bench        Benchmark app-servers (this one, the reference, …) under lock contention

Run 'thread-host <command> --help' for a command's options.`;

const APP_SERVER_USAGE = `Usage: thread-host app-server [options]

Serve the Codex app-server protocol (JSON-RPC) on stdin/stdout, WebSocket or a unix socket.

Options:
  --listen <url>        Transport: stdio:// (default), unix://, unix://PATH, ws://IP:PORT, off
  --stdio               Same as --listen stdio://
  --ws-auth <mode>      WebSocket auth: capability-token or signed-bearer-token
  --ws-token-file <path>
                        File holding the capability token
  --ws-token-sha256 <hex>
                        Hex SHA-256 digest of the capability token
  --ws-shared-secret-file <path>
                        File holding the HS256 secret of signed JWT bearer tokens (>= 32 bytes)
  --ws-issuer <iss>     Expected issuer of signed JWT bearer tokens
  --ws-audience <aud>   Expected audience of signed JWT bearer tokens
  --ws-max-clock-skew-seconds <n>
                        Clock skew allowed when checking exp/nbf (default: 30)
  --metrics-without-auth
                        Serve GET /metrics without the WebSocket's auth
  -c, --config <k=v>    Override a config.toml key; the value is parsed as TOML (repeatable)
  --workers <n>         Pool worker threads hosting thread actors (default: $THREAD_HOST_WORKERS,
                        else $TOKIO_WORKER_THREADS, else 2)
  --disable-plugin-startup-tasks-for-tests
                        Accepted for compatibility with the reference's test harness; no effect
  -h, --help            Show this help

The ws:// listener also answers GET /readyz, /healthz and /metrics; a non-loopback address
requires --ws-auth.

Home: $THREAD_HOST_HOME, else $CODEX_HOME, else ~/.thread-host (holds config.toml, sessions/).`;

/** A usage problem: message on stderr, exit code 2. */
class UsageError extends Error {}

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
      return appServer(rest);
    case 'mock-model': {
      const { runMockModelCommand } = await import('./mock-model/mock-model-command.js');
      return runMockModelCommand(rest);
    }
    case 'demo': {
      const { runDemo } = await import('./demo.js');
      return runDemo(rest);
    }
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
  const { spawn } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const entry = fileURLToPath(new URL('../../bench/main.js', import.meta.url));
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

async function appServer(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, {
    listen: { type: 'string', multiple: true },
    stdio: { type: 'boolean' },
    config: { type: 'string', short: 'c', multiple: true },
    workers: { type: 'string' },
    'ws-auth': { type: 'string' },
    'ws-token-file': { type: 'string' },
    'ws-token-sha256': { type: 'string' },
    'ws-shared-secret-file': { type: 'string' },
    'ws-issuer': { type: 'string' },
    'ws-audience': { type: 'string' },
    'ws-max-clock-skew-seconds': { type: 'string' },
    'metrics-without-auth': { type: 'boolean' },
    'disable-plugin-startup-tasks-for-tests': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(APP_SERVER_USAGE + '\n');
    return 0;
  }
  const { parseListenUrl, ListenUrlError } = await import('./transport/listen-url.js');
  const listens = (values.listen as string[] | undefined) ?? [];
  if (listens.length > 1) throw new UsageError("the argument '--listen <URL>' cannot be used multiple times");
  if (values.stdio && listens.length > 0) throw new UsageError("the argument '--stdio' cannot be used with '--listen <URL>'");
  const url = listens[0] ?? 'stdio://';
  let listen;
  try {
    listen = parseListenUrl(url, process.cwd());
  } catch (error) {
    if (error instanceof ListenUrlError) throw new UsageError(`invalid value '${url}' for '--listen <URL>': ${error.message}`);
    throw error;
  }
  const workers = workerCount((values.workers as string | undefined) ?? process.env.THREAD_HOST_WORKERS ?? process.env.TOKIO_WORKER_THREADS);
  const { resolveHome } = await import('./config/home.js');
  const { runAppServer } = await import('./app-server.js');
  const { ConfigError } = await import('./config/config-document.js');
  const { StartupError } = await import('./startup-error.js');
  try {
    return await runAppServer({
      home: resolveHome(),
      overrides: (values.config as string[] | undefined) ?? [],
      workers,
      env: process.env,
      listen,
      wsAuth: wsAuthFlags(values),
      metricsWithoutAuth: values['metrics-without-auth'] === true,
    });
  } catch (error) {
    // A configuration error is not a usage error: exit 1, as the reference does.
    if (error instanceof ConfigError) {
      process.stderr.write(`thread-host: invalid configuration: ${error.message}\n`);
      return 1;
    }
    // The reference's start-up errors (anyhow): `Error: …`, exit 1.
    if (error instanceof StartupError) {
      process.stderr.write(`Error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

const WS_AUTH_MODES = ['capability-token', 'signed-bearer-token'] as const;

function wsAuthFlags(values: Record<string, unknown>) {
  const mode = values['ws-auth'] as string | undefined;
  if (mode !== undefined && !(WS_AUTH_MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`invalid value '${mode}' for '--ws-auth <MODE>'\n  [possible values: ${WS_AUTH_MODES.join(', ')}]`);
  }
  const skew = values['ws-max-clock-skew-seconds'] as string | undefined;
  if (skew !== undefined && !/^\d+$/.test(skew)) throw new UsageError(`invalid value '${skew}' for '--ws-max-clock-skew-seconds <SECONDS>': invalid digit found in string`);
  const text = (name: string) => values[name] as string | undefined;
  return {
    mode: mode as (typeof WS_AUTH_MODES)[number] | undefined,
    tokenFile: text('ws-token-file'),
    tokenSha256: text('ws-token-sha256'),
    sharedSecretFile: text('ws-shared-secret-file'),
    issuer: text('ws-issuer'),
    audience: text('ws-audience'),
    maxClockSkewSeconds: skew === undefined ? undefined : Number(skew),
  };
}

function workerCount(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 2;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new UsageError(`worker count must be an integer from 1 to 64, got '${raw}'`);
  return n;
}

type OptionSpec = Parameters<typeof parseArgs>[0] extends infer T ? (T extends { options?: infer O } ? O : never) : never;

function parseCommandArgs(args: string[], options: NonNullable<OptionSpec>) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false });
  } catch (error) {
    // Node's text adds advice about positionals; the first sentence is the problem.
    const message = (error as Error).message.split('. ')[0]!;
    throw new UsageError(message.charAt(0).toLowerCase() + message.slice(1));
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
