// `thread-host app-server`: its flags, checked as the reference checks them, then the server.
// The CLI imports this module only for this command; it imports the whole server statically.
import { parseArgs } from 'node:util';
import { runAppServer } from './app-server.js';
import { ConfigError } from './config/config-document.js';
import { resolveHome } from './config/home.js';
import { StartupError } from './startup-error.js';
import { ListenUrlError, parseListenUrl } from './transport/listen-url.js';
import { UsageError } from './usage-error.js';

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

/** `thread-host app-server …`: parses the flags, then serves until told to stop; resolves the exit code. */
export async function runAppServerCommand(args: string[]): Promise<number> {
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
