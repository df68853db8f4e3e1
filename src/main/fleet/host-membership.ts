// This host's membership of the fleet: one row in the thread store's `hosts` table with a lease
// judged by the database's clock (src/common/postgres/host-lease.ts). Every thread this host
// owns is owned under that row, so one renewal keeps them all; a renewal that finds the lease
// lapsed (the host was paused, partitioned or starved past it) means another host may already
// have taken any of them over: every owned thread is given up through the lock-loss path, and
// the host registers anew before it takes another. Renewals run on a timer with a deadline
// each; nothing on a request's path waits for them.
import type { Pool } from 'pg';
import type { LogFn } from '../../common/log.js';
import { advertiseHost, registerHost, renewHost, retireHost } from '../../common/postgres/host-lease.js';
import { systemClock } from '../../common/clock.js';
import { withDeadline } from '../../common/deadline.js';

export interface HostMembershipOptions {
  pool: Pool;
  /** The `ws://` URL peers reach this host at. */
  endpoint: string;
  leaseMs: number;
  renewMs: number;
  log: LogFn;
  /** Every thread owned under the lapsed registration is lost. */
  onLapsed: (message: string) => void;
}

export class HostMembership {
  readonly #options: HostMembershipOptions;
  #hostId: string | null = null;
  /** performance.now() of the last renewal that the database confirmed. */
  #renewedAt = 0;
  #timer: NodeJS.Timeout | null = null;
  #renewing: Promise<void> | null = null;
  #closed = false;
  #endpoint: string;

  private constructor(options: HostMembershipOptions) {
    this.#options = options;
    this.#endpoint = options.endpoint;
  }

  /** Registers this host (at start, before serving) and starts renewing. */
  static async join(options: HostMembershipOptions): Promise<HostMembership> {
    const membership = new HostMembership(options);
    await membership.#register();
    membership.#timer = setInterval(() => void membership.#renew(), options.renewMs);
    membership.#timer.unref();
    return membership;
  }

  /** The registration threads are owned under now; null while re-registering after a lapse. */
  get hostId(): string | null {
    return this.#hostId;
  }

  /** Waits for a registration (after a lapse) for at most `ms`; null if there is none by then. */
  async currentHostId(ms: number): Promise<string | null> {
    if (this.#hostId !== null || this.#closed) return this.#hostId;
    // Through the one renewal in flight (which registers when there is no registration), so
    // acquisitions waiting together never register this host twice.
    await withDeadline(this.#renew(), ms, systemClock, () => undefined).catch(() => undefined);
    return this.#hostId;
  }

  /** The URL peers reach this host at, once its listener is bound; later registrations carry it too. */
  async advertise(endpoint: string, deadlineMs: number): Promise<void> {
    this.#endpoint = endpoint;
    const hostId = this.#hostId;
    if (hostId !== null) await advertiseHost(this.#options.pool, hostId, endpoint, { deadlineMs });
  }

  /** Shutdown: stops renewing and retires the registration, so its threads are free at once. */
  async leave(deadlineMs: number): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    const hostId = this.#hostId;
    this.#hostId = null;
    if (hostId === null) return;
    await retireHost(this.#options.pool, hostId, { deadlineMs }).catch((error: unknown) =>
      this.#options.log('warn', 'could not retire this host from the thread store; its threads are free once its lease lapses', { error: String(error) }),
    );
  }

  async #register(): Promise<void> {
    const { pool, leaseMs } = this.#options;
    const startedAt = performance.now();
    // Registering may take no longer than the lease it would hold.
    this.#hostId = await registerHost(pool, this.#endpoint, leaseMs, { deadlineMs: leaseMs });
    this.#renewedAt = startedAt;
  }

  #lapsed(message: string): void {
    this.#hostId = null;
    this.#options.onLapsed(message);
  }

  #renew(): Promise<void> {
    this.#renewing ??= this.#renewOnce().finally(() => (this.#renewing = null));
    return this.#renewing;
  }

  async #renewOnce(): Promise<void> {
    const { pool, leaseMs, renewMs, log } = this.#options;
    const hostId = this.#hostId;
    try {
      if (hostId === null) {
        await this.#register();
        return;
      }
      // A renewal slower than the renewal period is as good as failed: the next one is due.
      const startedAt = performance.now();
      const outcome = await renewHost(pool, hostId, leaseMs, { deadlineMs: renewMs });
      if (this.#closed) return;
      if (outcome === 'renewed') {
        this.#renewedAt = startedAt;
        return;
      }
      this.#lapsed(`this host's lease in the thread store lapsed (it was not renewed within ${leaseMs} ms)`);
      await this.#register();
    } catch (error) {
      log('warn', 'renewing this host in the thread store failed; retrying', { error: String(error) });
      // Unconfirmed for a whole lease (the database unreachable, say): other hosts may take
      // our threads over by now. Give them up rather than let clients believe they are served
      // here; the store would refuse our appends anyway.
      if (hostId !== null && this.#hostId === hostId && performance.now() - this.#renewedAt > leaseMs) {
        this.#lapsed(`this host's lease in the thread store could not be renewed for ${leaseMs} ms (${String(error)})`);
      }
    }
  }
}
