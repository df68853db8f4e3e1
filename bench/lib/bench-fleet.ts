// A fleet for the bench's multi-host cases: N hosts serving WebSocket on loopback, each in a
// home of its own, all on one database of the case (bench-postgres.ts) and sharing one fleet
// secret, so that a request for a thread another host owns is forwarded to it over a peer
// link (src/main/fleet/forwarder.ts). Each host advertises its --listen URL, the default.
// Stopped with SIGTERM, which must end each host cleanly; the homes are removed either way.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import type { CaseContext } from '../scenarios/scenario.js';
import { benchDatabase, postgresStoreConfig } from './bench-postgres.js';
import { createHome, removeHome } from './server-home.js';
import type { WsBenchClient } from './ws-bench-client.js';
import { WsEndpoint, wsCommandOf } from './ws-endpoint.js';

/** In each host's home, named relative to it (config paths resolve against the home). */
const SECRET_FILE = 'fleet-secret';
/** A lease long enough that renewals hardly show in the case's figures; nothing here dies. */
const FLEET_LEASE_MS = 60_000;
const FLEET_RENEW_MS = 20_000;

export interface BenchFleet {
  hosts: WsEndpoint[];
  database: PostgresConnection;
}

/**
 * Runs `body` against `count` hosts of `ctx.server` (as WebSocket servers) on one fresh
 * database, each home's config.toml also holding `extraConfig`. The clients the body opens go
 * in `clients` and are closed before the hosts stop. Fails the case (and runs nothing) when the
 * server command cannot serve WebSocket.
 */
export async function withBenchFleet(
  ctx: CaseContext,
  scenario: string,
  count: number,
  body: (fleet: BenchFleet, clients: WsBenchClient[]) => Promise<void>,
  extraConfig = '',
): Promise<void> {
  const command = wsCommandOf(ctx.server);
  if (command === null) {
    ctx.rec.fail(`${scenario} needs a WebSocket server command with {port} (e.g. "… app-server --listen ws://127.0.0.1:{port}")`);
    return;
  }
  const database = await benchDatabase(ctx.params.postgresUrl);
  const config = [postgresStoreConfig(database, FLEET_LEASE_MS, FLEET_RENEW_MS), `fleet_secret_file = ${JSON.stringify(SECRET_FILE)}`, extraConfig].join('\n');
  const secret = randomBytes(32).toString('hex');
  const homes = Array.from({ length: count }, () => createHome(ctx.mock.url, config));
  for (const home of homes) writeFileSync(join(home, SECRET_FILE), `${secret}\n`, { mode: 0o600 });
  const hosts: WsEndpoint[] = [];
  const clients: WsBenchClient[] = [];
  try {
    // One at a time: the first migrates the schema, the rest find it done.
    for (const home of homes) hosts.push(await WsEndpoint.start(command, home));
    await body({ hosts, database }, clients);
    for (const client of clients) client.close();
    const exits = await Promise.all(hosts.map((host) => host.stop()));
    exits.forEach(({ code, signal }, i) => ctx.rec.check(code === 0, `host ${i}: exit ${code ?? signal} after SIGTERM`));
  } finally {
    for (const client of clients) client.close();
    await Promise.all(hosts.map((host) => host.stop()));
    for (const home of homes) removeHome(home);
  }
}
