// A HostContext for in-process tests of the router and handlers: real where their decisions
// live (connections, outgoing, thread directory, rollout index) and stubbed where it would
// reach a worker, a lock or the model (pool, locks, supervisor, capacity), each stub answering
// at once unless the test passes its own. thread/list's pages are read in-process by the
// listing worker's own code.
import { systemClock } from '../../src/common/clock.js';
import { ConnectionTable } from '../../src/main/connections.js';
import type { HostContext } from '../../src/main/host-context.js';
import { RolloutHeads } from '../../src/listing/rollout-heads.js';
import { listThreadPage } from '../../src/listing/thread-page.js';
import { RolloutIndex } from '../../src/main/history/rollout-index.js';
import { Outgoing } from '../../src/main/outgoing.js';
import { ThreadDirectory } from '../../src/main/threads/directory.js';

export function stubHostContext(home: string, overrides: Record<string, unknown> = {}): HostContext {
  const connections = new ConnectionTable();
  return {
    home,
    configDocument: {},
    cwd: home,
    env: {},
    clock: systemClock,
    log: () => undefined,
    connections,
    outgoing: new Outgoing(connections),
    directory: new ThreadDirectory(),
    supervisor: { noteChanged: () => undefined, unload: async () => 'complete' },
    capacity: { roomOrWait: () => null },
    locks: { acquire: async (threadId: string) => ({ kind: 'acquired', lock: { threadId } }), release: () => 'unlinked' },
    rollouts: new RolloutIndex(home),
    // The listing worker's code, run in-process: the handlers' tests need no worker.
    threadPages: inProcessThreadPages(),
    recorder: { turnStarted: () => undefined, turnEnded: () => undefined },
    actorSpawnTimeoutMs: 1_000,
    originator: null,
    draining: false,
    ...overrides,
  } as unknown as HostContext;
}

function inProcessThreadPages(): HostContext['threadPages'] {
  const heads = new RolloutHeads();
  return { list: async (query) => listThreadPage(heads, query), close: async () => undefined };
}
