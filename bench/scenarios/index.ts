// Every scenario by name, in the order a full run takes them, and the group names the command
// line accepts. Adding a scenario is one import and one entry here.
import { BenchUsageError } from '../lib/bench-options.js';
import { churn } from './churn.js';
import { coldStart } from './cold-start.js';
import { fullHost } from './full-host.js';
import { idleUnload } from './idle-unload.js';
import { fanout } from './fanout.js';
import { forwarding } from './forwarding.js';
import { handoff } from './handoff.js';
import { hugeLine } from './huge-line.js';
import { lockedUnload } from './locked-unload.js';
import { probeFloor } from './probe-floor.js';
import { resumeUnderLock } from './resume-under-lock.js';
import type { Scenario } from './scenario.js';
import { scale } from './scale.js';
import { seed } from './seed.js';
import { shell } from './shell.js';
import { soak } from './soak.js';
import { startUnderLock } from './start-under-lock.js';
import { storedRead } from './stored-read.js';
import { takeover } from './takeover.js';
import { threadList } from './thread-list.js';
import { mcpThreads } from './mcp-threads.js';
import { tools } from './tools.js';
import { turnConcurrent, turnSequential } from './turns.js';

export const SCENARIOS: readonly Scenario[] = [
  seed,
  idleUnload,
  probeFloor,
  lockedUnload,
  resumeUnderLock,
  startUnderLock,
  churn,
  turnSequential,
  turnConcurrent,
  tools,
  shell,
  mcpThreads,
  coldStart,
  fullHost,
  scale,
  soak,
  handoff,
  fanout,
  hugeLine,
  threadList,
  storedRead,
  takeover,
  forwarding,
];

/**
 * Scenarios that run only when named, not in `all` (the default): soak takes 10 minutes,
 * handoff runs several servers on one home (with --mix, two implementations in one case), and
 * fanout, huge-line and stored-read need a WebSocket server, thread-list writes thousands of
 * rollouts, stored-read one of tens of megabytes, and takeover and forwarding run several
 * hosts on the PostgreSQL store; shell needs bwrap for its sandboxed cases.
 */
const ONLY_WHEN_NAMED = new Set(['shell', 'mcp-threads', 'soak', 'handoff', 'fanout', 'huge-line', 'thread-list', 'stored-read', 'takeover', 'forwarding']);

const GROUPS: Record<string, string[]> = {
  all: SCENARIOS.map((s) => s.name).filter((name) => !ONLY_WHEN_NAMED.has(name)),
  'under-lock': ['locked-unload', 'resume-under-lock', 'start-under-lock'],
  turns: ['turn-sequential', 'turn-concurrent'],
};

/** The scenarios named (groups expanded, duplicates dropped), in SCENARIOS order; all when none. */
export function selectScenarios(names: readonly string[]): Scenario[] {
  const wanted = new Set<string>();
  for (const name of names.length === 0 ? ['all'] : names) {
    const expanded = GROUPS[name] ?? [name];
    for (const one of expanded) {
      if (!SCENARIOS.some((s) => s.name === one)) {
        throw new BenchUsageError(`unknown scenario '${name}' (known: ${[...SCENARIOS.map((s) => s.name), ...Object.keys(GROUPS)].join(', ')})`);
      }
      wanted.add(one);
    }
  }
  return SCENARIOS.filter((s) => wanted.has(s.name));
}
