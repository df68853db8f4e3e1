// Starts the WebSocket transport for `--listen ws://…` or `unix://…`: the start-up checks the
// reference makes (auth flags, a non-loopback address without auth, the unix socket's files),
// the bind, and the banner. Problems here stop the process with `Error: …` and exit code 1.
import type { LogFn } from '../../common/log.js';
import type { ConnectionLimits } from '../config/host-config.js';
import { StartupError } from '../startup-error.js';
import { formatSocketAddress, isLoopback, type ListenTarget } from '../transport/listen-url.js';
import { defaultControlSocketPath, prepareUnixSocket, type UnixSocketFiles } from '../transport/unix-socket.js';
import { WebSocketTransport, type MetricsEndpoint } from '../transport/websocket.js';
import type { WsAuthPolicy } from '../transport/ws-auth-options.js';

// Keepalive round: a peer that answers no ping for up to two rounds is dropped. 30 s keeps
// the cost negligible for idle clients and frees a dead peer's threads within a minute.
const DEFAULT_PING_INTERVAL_MS = 30_000;

export interface SocketListenerOptions {
  target: Extract<ListenTarget, { kind: 'ws' | 'unix' }>;
  auth: WsAuthPolicy;
  /** How peers of a fleet are recognized (their token); null outside a fleet. */
  fleetAuth: WsAuthPolicy | null;
  home: string;
  limits: ConnectionLimits;
  metrics: MetricsEndpoint | null;
  env: NodeJS.ProcessEnv;
  log: LogFn;
}

/** A transport ready to bind, with what must run after binding and at exit. */
export interface SocketListener {
  transport: WebSocketTransport;
  /** Binds, publishes the unix socket, prints the banner; resolves with the bound `ws://` URL (null for a unix socket). */
  start(): Promise<string | null>;
  /** Removes the unix socket's files (nothing for TCP). */
  cleanUp(): void;
}

export async function createSocketListener(options: SocketListenerOptions): Promise<SocketListener> {
  const { target, auth, limits } = options;
  if (target.kind === 'ws' && auth.mode === 'none' && !isLoopback(target.host)) {
    throw new StartupError(
      `refusing to start non-loopback websocket listener ${formatSocketAddress(target.host, target.port)} without auth; ` +
        'configure `--ws-auth capability-token` or `--ws-auth signed-bearer-token`',
    );
  }
  const files: UnixSocketFiles | null = target.kind === 'unix' ? await prepareUnixSocket(target.path ?? defaultControlSocketPath(options.home)) : null;
  const transport = new WebSocketTransport({
    endpoint: target.kind === 'ws' ? { kind: 'tcp', host: target.host, port: target.port } : { kind: 'unix', socketPath: files!.socketPath },
    auth,
    fleetAuth: options.fleetAuth,
    maxMessageBytes: limits.maxLineBytes,
    maxOutboundBytes: limits.maxOutboundBytes,
    pingIntervalMs: pingInterval(options.env),
    metrics: options.metrics,
    log: options.log,
  });
  return {
    transport,
    start: async () => {
      const address = await transport.bind();
      if (files) {
        files.publish();
        options.log('info', 'app-server control socket listening', { socketPath: files.socketPath });
        return null;
      }
      if (!('host' in address)) return null;
      process.stderr.write(banner(formatSocketAddress(address.host, address.port), isLoopback(address.host)));
      return `ws://${formatSocketAddress(address.host, address.port)}`;
    },
    cleanUp: () => files?.remove(),
  };
}

/** The reference's start-up banner (stderr, ws only), with thread-host's name. */
function banner(address: string, loopback: boolean): string {
  const note = loopback ? 'binds localhost only (use SSH port-forwarding for remote access)' : 'websocket auth is required for non-localhost listeners';
  return [
    'thread-host app-server (WebSockets)',
    `  listening on: ws://${address}`,
    `  readyz: http://${address}/readyz`,
    `  healthz: http://${address}/healthz`,
    `  note: ${note}`,
    '',
  ].join('\n');
}

function pingInterval(env: NodeJS.ProcessEnv): number {
  const raw = env.THREAD_HOST_WS_PING_INTERVAL_MS;
  if (raw === undefined || raw === '') return DEFAULT_PING_INTERVAL_MS;
  const ms = Number(raw);
  return Number.isFinite(ms) && ms >= 0 ? ms : DEFAULT_PING_INTERVAL_MS;
}
