// A TCP proxy in front of a PostgreSQL unix socket that can hold traffic instead of dropping
// it: a partition that ends with every held byte delivered, late. A drop cannot reproduce the
// fault the store's fence exists for (a statement sent before a takeover, arriving after it):
// held, the statement reaches the server only when the test says so. A side that closes while
// held closes only once what it sent before has been delivered.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

interface Direction {
  /** Whether it runs from a host to the database. */
  isClient: boolean;
  to: Socket;
  held: Buffer[];
  ended: boolean;
}

export class BufferingProxy {
  /** Bytes that were held and then delivered, both ways. */
  deliveredLate = 0;
  #holding = false;
  #holdMarker: string | null = null;
  readonly #lateToDatabase: Buffer[] = [];
  readonly #directions: Direction[] = [];
  readonly #sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Listens on 127.0.0.1 (a free port); each connection is piped to the unix socket at `socketPath`. */
  static async start(socketPath: string): Promise<BufferingProxy> {
    let proxy!: BufferingProxy;
    const server = createServer((client) => proxy.pipe(client, createConnection(socketPath)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy: no TCP address');
    proxy = new BufferingProxy(server, address.port);
    return proxy;
  }

  /**
   * From the first chunk a host sends that holds `marker` (a statement's text) on, nothing
   * passes either way; everything is kept, that chunk included. The partition then begins
   * exactly as the statement leaves the host, whatever the timing.
   */
  holdFrom(marker: string): void {
    this.#holdMarker = marker;
  }

  /** Whether the partition has begun. */
  get holding(): boolean {
    return this.#holding;
  }

  /** Delivers everything held, in order, and lets traffic pass again. */
  release(): void {
    this.#holding = false;
    this.#holdMarker = null;
    for (const direction of this.#directions) this.#flush(direction);
  }

  /** What reached the database late, as text: the statements a host sent while held. */
  deliveredLateToDatabase(): string {
    return Buffer.concat(this.#lateToDatabase).toString('latin1');
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private pipe(client: Socket, upstream: Socket): void {
    for (const socket of [client, upstream]) {
      this.#sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => this.#sockets.delete(socket));
    }
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      const direction: Direction = { isClient: from === client, to, held: [], ended: false };
      this.#directions.push(direction);
      from.on('data', (chunk: Buffer) => {
        if (direction.isClient && this.#holdMarker !== null && chunk.toString('latin1').includes(this.#holdMarker)) {
          this.#holdMarker = null;
          this.#holding = true;
        }
        if (this.#holding || direction.held.length > 0) direction.held.push(chunk);
        else to.write(chunk);
      });
      // A side that ends (or is reset) ends the other once nothing is held for it.
      const ended = (): void => {
        direction.ended = true;
        if (!this.#holding) this.#flush(direction);
      };
      from.on('end', ended);
      from.on('close', ended);
    }
  }

  #flush(direction: Direction): void {
    for (const chunk of direction.held.splice(0)) {
      if (direction.to.destroyed) continue;
      direction.to.write(chunk);
      this.deliveredLate += chunk.length;
      if (direction.isClient) this.#lateToDatabase.push(chunk);
    }
    if (direction.ended && !direction.to.destroyed) direction.to.end();
  }
}
