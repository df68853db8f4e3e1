// The WebSocket transport: one HTTP server, on a TCP address (`ws://IP:PORT`) or a unix
// socket (`unix://`), whose upgrades become connections. Every connection initializes and is
// limited on its own; closing one never stops the host. Over TCP the listener also answers
// `/readyz`, `/healthz` and `/metrics` and applies the Origin and auth checks before the
// upgrade; over a unix socket access is the socket file's permissions, as in the reference.
//
//   http.Server ──request──> http-gate (health, metrics, axum's rejections)
//        └──────upgrade──> Origin → path → shape → auth ──> WebSocketServer ──> WebSocketPeer
//
// Beyond the reference, a keepalive round pings every connection at an interval and drops one
// that answered nothing since the previous round (a dead peer otherwise holds its
// subscriptions, and so its threads, for ever).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { LogFn } from '../../common/log.js';
import { ioErrorText, StartupError } from '../startup-error.js';
import {
  healthAnswer,
  HEALTH_PATHS,
  METRICS_PATH,
  originRefusal,
  pathOf,
  unauthorized,
  upgradeRejection,
  writeRawAnswer,
  type HttpAnswer,
} from './http-gate.js';
import type { ConnectionHandler, ConnectionSink, Transport } from './transport.js';
import { OutputFlusher } from './output-flusher.js';
import { WebSocketPeer } from './websocket-peer.js';
import { authorizeUpgrade } from './ws-authenticator.js';
import type { WsAuthPolicy } from './ws-auth-options.js';

/** Where the HTTP server listens. */
export type WebSocketEndpoint = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; socketPath: string };

/** `/metrics`: the exposition and whether it skips the WebSocket's auth. */
export interface MetricsEndpoint {
  render(): Promise<{ contentType: string; body: string }>;
  withoutAuth: boolean;
}

export interface WebSocketTransportOptions {
  endpoint: WebSocketEndpoint;
  auth: WsAuthPolicy;
  /** A fleet's hosts: a token that passes this makes the connection a peer link (src/main/fleet/fleet-token.ts). */
  fleetAuth: WsAuthPolicy | null;
  /** `max_line_bytes`: the largest message (frame) a client may send. */
  maxMessageBytes: number;
  maxOutboundBytes: number;
  /** Keepalive round interval; 0 turns keepalive off. */
  pingIntervalMs: number;
  metrics: MetricsEndpoint | null;
  log: LogFn;
}

export class WebSocketTransport implements Transport {
  readonly #options: WebSocketTransportOptions;
  readonly #server: Server;
  readonly #wss: WebSocketServer;
  readonly #peers = new Set<WebSocketPeer>();
  readonly #flusher: OutputFlusher;
  #open: ((sink: ConnectionSink) => ConnectionHandler) | null = null;
  #accepting = true;
  #keepalive: NodeJS.Timeout | null = null;
  #nextPeer = 1;

  constructor(options: WebSocketTransportOptions) {
    this.#options = options;
    this.#flusher = new OutputFlusher();
    // No compression (the reference negotiates none) and no subprotocol.
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes, perMessageDeflate: false, clientTracking: false });
    this.#wss.on('headers', (headers) => this.#extraUpgradeHeaders(headers));
    this.#server = createServer((request, response) => void this.#onRequest(request, response));
    this.#server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => void this.#onUpgrade(request, socket, head));
  }

  listen(open: (sink: ConnectionSink) => ConnectionHandler): void {
    this.#open = open;
  }

  /** Binds the listener; resolves with the bound address (`127.0.0.1:PORT`, `[::1]:PORT`, or the socket path). */
  bind(): Promise<{ host: string; port: number } | { socketPath: string }> {
    const { endpoint } = this.#options;
    return new Promise((resolve, reject) => {
      const fail = (error: Error) => reject(new StartupError(ioErrorText(error)));
      this.#server.once('error', fail);
      const done = () => {
        this.#server.off('error', fail);
        this.#server.on('error', (error) => this.#options.log('error', 'websocket listener error', { error: error.message }));
        this.#startKeepalive();
        const address = this.#server.address();
        if (endpoint.kind === 'unix' || address === null || typeof address === 'string') resolve({ socketPath: String(address) });
        else resolve({ host: address.address, port: address.port });
      };
      if (endpoint.kind === 'tcp') this.#server.listen({ host: endpoint.host, port: endpoint.port }, done);
      else this.#server.listen(endpoint.socketPath, done);
    });
  }

  /** Connections currently open. */
  get connectionCount(): number {
    return this.#peers.size;
  }

  // New connections are refused; open ones keep serving (requests get the draining error).
  stopAccepting(): void {
    this.#accepting = false;
    this.#server.close();
  }

  async flush(ms: number): Promise<void> {
    await Promise.all([...this.#peers].map((peer) => peer.flush(ms)));
  }

  /** Drops every connection (clients see 1006, as with the reference) and stops the keepalive. */
  close(): void {
    this.#accepting = false;
    if (this.#keepalive) clearInterval(this.#keepalive);
    for (const peer of this.#peers) peer.terminate('outputClosed');
    this.#server.close();
    this.#server.closeAllConnections();
  }

  async #onRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const answer = await this.#httpAnswer(request);
      if (answer === null) {
        // The unix socket speaks WebSocket only: anything else is closed unanswered.
        request.socket.destroy();
        return;
      }
      response.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body ?? '') });
      response.end(request.method === 'HEAD' ? undefined : answer.body);
    } catch (error) {
      this.#options.log('error', 'failed to answer an HTTP request', { error: error instanceof Error ? error.message : String(error) });
      response.destroy();
    }
  }

  async #httpAnswer(request: IncomingMessage): Promise<HttpAnswer | null> {
    const { metrics, endpoint } = this.#options;
    const path = pathOf(request);
    const tcp = endpoint.kind === 'tcp';
    if (tcp) {
      const forbidden = originRefusal(request);
      if (forbidden) return this.#refusedOrigin(request, forbidden);
      if (HEALTH_PATHS.has(path)) return healthAnswer(request);
    }
    if (metrics !== null && path === METRICS_PATH) {
      const methodProblem = healthAnswer(request);
      if (methodProblem.status !== 200) return methodProblem;
      if (tcp && !metrics.withoutAuth) {
        const refusal = await this.#authRefusal(request);
        if (refusal) return refusal;
      }
      const { contentType, body } = await metrics.render();
      return { status: 200, headers: { 'content-type': contentType }, body };
    }
    return tcp ? upgradeRejection(request) : null;
  }

  async #onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => undefined);
    if (!this.#accepting || this.#open === null) {
      socket.destroy();
      return;
    }
    let fleetPeer = false;
    if (this.#options.endpoint.kind === 'tcp') {
      const path = pathOf(request);
      let refusal = originRefusal(request) ?? (HEALTH_PATHS.has(path) ? healthAnswer(request) : null) ?? upgradeRejection(request);
      if (refusal === null) {
        fleetPeer = await this.#isFleetPeer(request);
        if (!fleetPeer) refusal = await this.#authRefusal(request);
      }
      if (refusal) {
        if (refusal.status === 403) this.#refusedOrigin(request, refusal);
        writeRawAnswer(socket, refusal);
        return;
      }
    }
    if (!this.#accepting || socket.destroyed) {
      socket.destroy();
      return;
    }
    this.#wss.handleUpgrade(request, socket, head, (ws) => this.#accept(ws, request, fleetPeer));
  }

  // Another host of the fleet, by its token; anything else is a client, checked by the client auth.
  async #isFleetPeer(request: IncomingMessage): Promise<boolean> {
    const { fleetAuth } = this.#options;
    if (fleetAuth === null || request.headers.authorization === undefined) return false;
    return (await authorizeUpgrade(fleetAuth, request.headers.authorization, Math.floor(Date.now() / 1000))).kind === 'allowed';
  }

  async #authRefusal(request: IncomingMessage): Promise<HttpAnswer | null> {
    const verdict = await authorizeUpgrade(this.#options.auth, request.headers.authorization, Math.floor(Date.now() / 1000));
    if (verdict.kind === 'allowed') return null;
    this.#options.log('warn', 'rejecting websocket client during upgrade', {
      peerAddr: peerAddress(request),
      message: verdict.body,
      reason: verdict.reason,
    });
    return unauthorized(verdict.body);
  }

  #refusedOrigin(request: IncomingMessage, answer: HttpAnswer): HttpAnswer {
    this.#options.log('warn', 'rejecting websocket listener request with Origin header', { method: request.method, uri: request.url });
    return answer;
  }

  #accept(ws: WebSocket, request: IncomingMessage, fleetPeer: boolean): void {
    const peer = new WebSocketPeer(ws, this.#options.maxOutboundBytes, this.#options.log, `${this.#nextPeer++}@${peerAddress(request)}`, this.#flusher, fleetPeer);
    this.#peers.add(peer);
    this.#options.log('info', 'websocket client connected', { peer: peer.id, fleetPeer });
    peer.attach(this.#open!(peer), () => this.#peers.delete(peer));
  }

  #extraUpgradeHeaders(headers: string[]): void {
    // The reference's unix listener advertises its frame limit; its TCP one sends a date.
    if (this.#options.endpoint.kind === 'unix') headers.push(`x-codex-websocket-max-unfragmented-message-bytes: ${this.#options.maxMessageBytes}`);
    else headers.push(`date: ${new Date().toUTCString()}`);
  }

  #startKeepalive(): void {
    const { pingIntervalMs, log } = this.#options;
    if (pingIntervalMs <= 0) return;
    // One timer for all connections, not one per connection.
    this.#keepalive = setInterval(() => {
      for (const peer of this.#peers) {
        if (peer.dropped) continue;
        if (!peer.alive) {
          log('warn', 'dropping websocket peer that answered no ping', { peer: peer.id });
          peer.terminate('outputClosed');
          continue;
        }
        peer.alive = false;
        peer.socket.ping();
      }
    }, pingIntervalMs);
    this.#keepalive.unref();
  }
}

const peerAddress = (request: IncomingMessage): string => {
  const { remoteAddress, remotePort } = request.socket;
  return remoteAddress === undefined ? 'unix' : `${remoteAddress}:${remotePort}`;
};
