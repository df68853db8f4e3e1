// A host's lease in the database: one row per process, renewed while it lives. Expiry is judged
// by the database's clock alone (now()), so the hosts' clocks may disagree without harm. A
// renewal only extends a lease not yet expired: once it lapsed, another host may have taken the
// threads over, so the host must treat every thread as lost and register anew.
import type pg from 'pg';
import { deadlineOf, queryWithin, type CallOptions } from './postgres-connection.js';

// Rows of hosts whose lease lapsed this long ago are removed at the next registration: their
// threads were free to take since, so releasing them changes nothing.
const FORGET_HOSTS_AFTER = '1 day';

/** Registers this process as a host reachable at `endpoint`; returns its id. */
export async function registerHost(pool: pg.Pool, endpoint: string, leaseMs: number, call?: CallOptions): Promise<string> {
  const result = await queryWithin<{ host_id: string }>(
    pool,
    deadlineOf(pool, call),
    `WITH forgotten AS (DELETE FROM hosts WHERE lease_until < now() - interval '${FORGET_HOSTS_AFTER}')
     INSERT INTO hosts (host_id, endpoint, lease_until, started_at)
     VALUES (gen_random_uuid(), $1, now() + $2 * interval '1 millisecond', now())
     RETURNING host_id`,
    [endpoint, leaseMs],
  );
  return result.rows[0]!.host_id;
}

/** Extends the lease by `leaseMs` from now if it has not expired; 'lapsed' otherwise (or if the row is gone). */
export async function renewHost(pool: pg.Pool, hostId: string, leaseMs: number, call?: CallOptions): Promise<'renewed' | 'lapsed'> {
  const result = await queryWithin(
    pool,
    deadlineOf(pool, call),
    `UPDATE hosts SET lease_until = now() + $2 * interval '1 millisecond'
     WHERE host_id = $1 AND lease_until > now()`,
    [hostId, leaseMs],
  );
  return result.rowCount === 1 ? 'renewed' : 'lapsed';
}

/** A clean shutdown: the host's row goes, and with it its hold on every thread (owner_host becomes NULL). */
export async function retireHost(pool: pg.Pool, hostId: string, call?: CallOptions): Promise<void> {
  await queryWithin(pool, deadlineOf(pool, call), `DELETE FROM hosts WHERE host_id = $1`, [hostId]);
}

/** The URL peers reach a host at, once it is known (a listener bound to port 0 learns it after registering). */
export async function advertiseHost(pool: pg.Pool, hostId: string, endpoint: string, call?: CallOptions): Promise<void> {
  await queryWithin(pool, deadlineOf(pool, call), `UPDATE hosts SET endpoint = $2 WHERE host_id = $1`, [hostId, endpoint]);
}
