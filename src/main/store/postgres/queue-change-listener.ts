// Hears the queue changes other hosts make (src/common/postgres/queued-input.ts announces each
// write on a channel as it commits), so the host that has a thread loaded, which runs its queued
// input, learns of input queued through another host and tells the thread's subscribers. One
// connection of its own LISTENs (a pool's connections come and go). A lost connection is opened
// again after a pause; changes made while it was down are not replayed, so once it is back every
// thread loaded here reads its queue again (`onChange(null)`). Nothing here is on a request's
// path: a listener that cannot connect costs only the news of other hosts' changes.
import pg from 'pg';
import type { LogFn } from '../../../common/log.js';
import { DEFAULT_CONNECT_MS, type PostgresConnection } from '../../../common/postgres/postgres-connection.js';
import { QUEUE_CHANNEL, type QueueChange } from '../../../common/postgres/queued-input.js';
import { threadIdOf, type ThreadId } from '../../../common/thread-id.js';

const RECONNECT_MS = 1_000;
const LISTEN_DEADLINE_MS = 5_000;

export interface QueueChangeListenerOptions {
  connection: PostgresConnection;
  /** This host's origin: its own changes are not news. */
  origin: string;
  log: LogFn;
}

export class QueueChangeListener {
  #client: pg.Client | null = null;
  #onChange: ((threadId: ThreadId | null) => void) | null = null;
  #retry: NodeJS.Timeout | null = null;
  #closed = false;
  #everConnected = false;

  constructor(private readonly options: QueueChangeListenerOptions) {}

  /** Starts listening; `onChange` hears each thread another host changed the queue of, or null: any may have changed. */
  start(onChange: (threadId: ThreadId | null) => void): void {
    this.#onChange = onChange;
    void this.#connect();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry !== null) clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const { connection, log } = this.options;
    const client = new pg.Client({
      ...(connection.url === null ? {} : { connectionString: connection.url }),
      application_name: 'thread-host queue changes',
      connectionTimeoutMillis: DEFAULT_CONNECT_MS,
      keepAlive: true,
    });
    this.#client = client;
    client.on('error', (error) => {
      log('warn', 'the queue change listener lost its connection', { error: error.message });
      this.#lost(client);
    });
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => this.#heard(message.payload));
    try {
      await client.connect();
      await client.query({ text: `LISTEN ${QUEUE_CHANNEL}`, query_timeout: LISTEN_DEADLINE_MS } as pg.QueryConfig);
    } catch (error) {
      log('warn', 'the queue change listener cannot listen; it tries again', { error: String(error) });
      this.#lost(client);
      return;
    }
    if (this.#client !== client) return;
    if (this.#everConnected) this.#onChange?.(null);
    this.#everConnected = true;
  }

  #heard(payload: string | undefined): void {
    try {
      const change = JSON.parse(payload ?? '') as Partial<QueueChange>;
      if (typeof change.threadId === 'string' && change.origin !== this.options.origin) this.#onChange?.(threadIdOf(change.threadId));
    } catch {
      // Not an announcement of ours.
    }
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = null;
    void client.end().catch(() => undefined);
    if (this.#closed) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      void this.#connect();
    }, RECONNECT_MS);
    this.#retry.unref();
  }
}
