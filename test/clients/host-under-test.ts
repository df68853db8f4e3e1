// thread-host as the reference's clients meet it: the built CLI (`app-server`, dist bundle)
// listening on `ws://127.0.0.1:PORT` or on a unix socket, the address spelled as the clients'
// `--remote` takes it, and a control connection of the test's own to read what the clients did.
import { join } from 'node:path';
import { WsServer, type WsClient, type WsServerOptions } from '../helpers/ws-server.js';

export type Transport = 'ws' | 'unix';
export const TRANSPORTS: readonly Transport[] = ['ws', 'unix'];

/** The socket's name in the server's home (its working directory). */
const SOCKET = 'clients.sock';

export interface HostUnderTest {
  readonly server: WsServer;
  /** What `--remote` is given: `ws://127.0.0.1:PORT` or `unix://PATH`. */
  readonly remote: string;
  /** Initialized; it never subscribes to a thread, so it changes nothing the clients see. */
  readonly control: WsClient;
}

export interface HostOptions extends Omit<WsServerOptions, 'listen'> {
  /** Headers of the control connection (the bearer token when auth is on). */
  controlHeaders?: Record<string, string>;
}

export async function startHost(transport: Transport, options: HostOptions): Promise<HostUnderTest> {
  // Relative to the server's working directory, its home: the path is known once it started.
  const server = await WsServer.start({ ...options, listen: transport === 'ws' ? 'ws://127.0.0.1:0' : `unix://${SOCKET}` });
  const remote = transport === 'ws' ? server.baseUrl : `unix://${join(server.home, SOCKET)}`;
  const control = await server.connect({ headers: options.controlHeaders ?? {} });
  return { server, remote, control };
}
