// End-to-end helper for the socket transports: the real CLI listening on `ws://127.0.0.1:0`
// (port read from the banner) or a unix socket, and any number of WebSocket clients from the
// client library (src/client), each a connection whose received messages are schema-checked.
import { readdirSync, readFileSync } from 'node:fs';
import { onTestFinished } from 'vitest';
import type WebSocket from 'ws';
import { HttpRefusal, WebSocketTransport } from '../../src/client/websocket-transport.js';
import { CheckedConnection, type Message } from './checked-connection.js';
import { ServerProcess, type ServerProcessOptions } from './server-process.js';

export { RpcReplyError, type Message } from './checked-connection.js';
export { HttpRefusal };

export interface WsServerOptions extends ServerProcessOptions {
  /** `--listen` value; `ws://127.0.0.1:0` when absent. */
  listen?: string;
}

export interface ConnectOptions {
  headers?: Record<string, string>;
  /** Send initialize/initialized first (default true). */
  initialize?: boolean;
  clientName?: string;
  /** Request path on the server (default `/`). */
  path?: string;
  /** Answer the server's pings (default true); false plays a peer that vanished. */
  autoPong?: boolean;
}

const BANNER = /listening on: (ws:\/\/\S+)/;

export class WsServer {
  readonly process: ServerProcess;
  readonly clients: WsClient[] = [];
  /** `ws://HOST:PORT` for TCP, `ws+unix:PATH` for a unix socket. */
  baseUrl = '';

  private constructor(listen: string, options: ServerProcessOptions) {
    this.process = new ServerProcess(['--listen', listen], options);
  }

  /** Starts the server; resolves once it listens (banner for TCP, log line for unix). */
  static async start(options: WsServerOptions = {}): Promise<WsServer> {
    const listen = options.listen ?? 'ws://127.0.0.1:0';
    const unix = listen.startsWith('unix://');
    const env = unix ? { THREAD_HOST_LOG: 'info', ...options.env } : (options.env ?? {});
    const server = new WsServer(listen, { ...options, env });
    // A test that fails before stop() must not leave its server running.
    onTestFinished(async () => {
      for (const client of server.clients) client.ws.terminate();
      if (server.process.child.exitCode === null && server.process.child.signalCode === null) await server.process.reap(0);
    });
    if (unix) {
      const line = await server.process.waitForLog((l) => l.msg === 'app-server control socket listening');
      server.baseUrl = `ws+unix:${line.socketPath}`;
    } else {
      server.baseUrl = await server.process.waitForStderr(() => BANNER.exec(server.process.stderr)?.[1], 10_000, 'no banner');
    }
    return server;
  }

  /** `http://HOST:PORT` of a TCP listener. */
  get httpUrl(): string {
    return this.baseUrl.replace(/^ws:/, 'http:');
  }

  get home(): string {
    return this.process.home;
  }

  /** Opens one client connection (initialized unless told otherwise). */
  async connect(options: ConnectOptions = {}): Promise<WsClient> {
    const path = options.path ?? '/';
    const url = this.baseUrl.startsWith('ws+unix:') ? `${this.baseUrl}:${path}` : `${this.baseUrl}${path}`;
    const client = await WsClient.open(url, { headers: options.headers ?? {}, autoPong: options.autoPong ?? true }, this.process);
    this.clients.push(client);
    if (options.initialize !== false) await client.initialize({ name: options.clientName ?? 'codex-app-server-tests', title: null, version: '0.1.0' });
    return client;
  }

  /** One sample from `GET /metrics`, named as exposed (`name{label="v"}`); null when absent. */
  async metric(name: string, headers: Record<string, string> = {}): Promise<number | null> {
    const text = await (await fetch(`${this.httpUrl}/metrics`, { headers })).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? null : Number(line.slice(name.length + 1));
  }

  /** Open file descriptors of the server process. */
  openFds(): number {
    return readdirSync(`/proc/${this.process.child.pid}/fd`).length;
  }

  /** Resident memory of the server process, in bytes. */
  rssBytes(): number {
    const status = readFileSync(`/proc/${this.process.child.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
  }

  /** Sends `signal` (SIGTERM: graceful), waits for exit, fails on any schema problem seen by a client. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 10_000): Promise<number | null> {
    this.process.child.kill(signal);
    const code = await this.process.reap(timeoutMs);
    for (const client of this.clients) client.ws.terminate();
    const problems = this.clients.flatMap((c) => c.schemaProblems);
    if (problems.length > 0) throw new Error(`server sent messages that violate the schema:\n${problems.join('\n')}`);
    return code;
  }
}

export class WsClient extends CheckedConnection {
  /** Resolves with the close code once the connection is gone (1006: dropped without a close frame). */
  readonly closed: Promise<number>;
  readonly ws: WebSocket;

  private constructor(transport: WebSocketTransport, server: ServerProcess) {
    super(transport, () => `server stderr: ${server.stderr.slice(-2000)}`);
    this.ws = transport.socket;
    this.closed = transport.closedCode;
    transport.onBinaryFrame = () => this.schemaProblems.push('binary frame from the server');
  }

  static async open(url: string, options: { headers: Record<string, string>; autoPong: boolean }, server: ServerProcess): Promise<WsClient> {
    return new WsClient(await WebSocketTransport.open(url, options), server);
  }

  /** A clean close (close frame) or an abrupt one (TCP reset, no frame). */
  async disconnect(how: 'close' | 'terminate' = 'close'): Promise<number> {
    if (how === 'close') this.ws.close(1000);
    else this.ws.terminate();
    return this.closed;
  }

  /** The methods of the notifications received so far, in order. */
  methods(): string[] {
    return this.received.filter((m: Message) => 'method' in m).map((m: Message) => m.method as string);
  }
}
