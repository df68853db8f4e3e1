// The correctness verdict of the handoff scenario, as pure functions so that a planted fault
// (a missing turn, a duplicate, two writers in one lock sample) can be tested without
// processes. Two sources, neither of them the servers' own word:
//   - the histories every implementation in the run reads back at the end, against the turns
//     the bench sent and what it heard about each (turn/completed, or a kill cut it);
//   - the kernel's lock table, sampled throughout: one thread's writer lock held by two
//     processes at once is a violation whatever the histories say.
// A violation names the thread, the turn and the processes, so a reader can go to the kept home.

/** A turn the bench started, and how it ended from the bench's side. */
export interface SentTurn {
  threadId: string;
  /** Unique text inside the turn's user message: how a turn is found whatever id a reader gives it. */
  token: string;
  /** From the turn/start reply; null when the process died before replying. */
  turnId: string | null;
  /** The process that ran it, as reports name processes (`p2 thread-host pid 4242`). */
  process: string;
  /** `acknowledged`: turn/completed arrived; `cut`: its process was killed before that. */
  outcome: 'acknowledged' | 'cut';
  /** The status turn/completed carried (acknowledged turns only). */
  status: string | null;
}

/** A turn as an implementation's thread/read returned it. */
export interface ReadTurn {
  id: string;
  status: string;
  /** Texts of the turn's user messages (where the token is). */
  texts: string[];
}

/** One implementation's read of one thread from a fresh process: its turns, or why it failed. */
export interface HistoryRead {
  reader: string;
  threadId: string;
  turns: ReadTurn[] | null;
  error: string | null;
}

/** One /proc/locks sample: which pid held which thread's writer lock (coordination lock excluded). */
export interface LockSample {
  at: number;
  holders: ReadonlyArray<{ threadId: string; pid: number }>;
}

/**
 * `deadHolder`: a killed server's writer lock still held after it died (scenarios/handoff.ts
 * checks it); `misplacedOrdinal` and `epochRegression`: a PostgreSQL history's rows out of order
 * or written under a lost epoch (scenarios/handoff-postgres.ts).
 */
export type ViolationKind = 'missing' | 'duplicate' | 'wrongStatus' | 'unexpected' | 'unreadable' | 'twoWriters' | 'deadHolder' | 'misplacedOrdinal' | 'epochRegression';

export interface Violation {
  kind: ViolationKind;
  threadId: string;
  /** The turn (id, else token) concerned; null for a whole-thread or lock violation. */
  turn: string | null;
  processes: string[];
  message: string;
}

/**
 * What a cut turn may read back as. README "Guarantees": a cut turn resumes as interrupted. It
 * reads back completed when the kill fell after its last line reached the kernel but before
 * turn/completed reached the bench (the host writes first, then notifies): durable, just
 * never acknowledged.
 */
const CUT_STATUSES: readonly string[] = ['interrupted', 'completed'];
/** A cut turn whose user message never landed has no token to be found by: only its status shows. */
const CUT_STATUS_WITHOUT_MESSAGE = 'interrupted';

const turnName = (t: SentTurn): string => t.turnId ?? `"${t.token}"`;

function matches(sent: SentTurn, read: ReadTurn): boolean {
  return (sent.turnId !== null && read.id === sent.turnId) || read.texts.some((text) => text.includes(sent.token));
}

/**
 * Checks every read against the turns sent on its thread:
 *  - an acknowledged turn appears exactly once, with the status turn/completed carried;
 *  - a cut turn appears at most once, as `interrupted` (or `completed`, see CUT_STATUSES); it is
 *    absent when nothing of it reached the rollout; when its start did but its user message did
 *    not, it reads back as an interrupted turn without the token, allowed once per cut turn
 *    left unmatched;
 *  - nothing else appears; and the read itself succeeded.
 */
export function historyViolations(sent: readonly SentTurn[], reads: readonly HistoryRead[]): Violation[] {
  const violations: Violation[] = [];
  for (const read of reads) {
    const by = `as read by ${read.reader}`;
    if (read.turns === null) {
      violations.push({ kind: 'unreadable', threadId: read.threadId, turn: null, processes: [], message: `thread ${read.threadId}: rollout unreadable ${by}: ${read.error ?? 'no turns'}` });
      continue;
    }
    const turns = read.turns;
    const claimed = new Set<number>();
    let unmatchedCuts = 0;
    for (const t of sent.filter((s) => s.threadId === read.threadId)) {
      const found = turns.flatMap((r, i) => (matches(t, r) ? [i] : []));
      for (const i of found) claimed.add(i);
      const head = `thread ${read.threadId}: ${t.outcome} turn ${turnName(t)} (${t.process})`;
      const base = { threadId: read.threadId, turn: turnName(t), processes: [t.process] };
      if (found.length > 1) {
        violations.push({ ...base, kind: 'duplicate', message: `${head} appears ${found.length} times ${by}` });
      } else if (found.length === 0) {
        if (t.outcome === 'acknowledged') violations.push({ ...base, kind: 'missing', message: `${head} missing ${by}` });
        else unmatchedCuts += 1;
      } else {
        const status = turns[found[0]!]!.status;
        const allowed = t.outcome === 'acknowledged' ? [t.status] : CUT_STATUSES;
        if (!allowed.includes(status)) violations.push({ ...base, kind: 'wrongStatus', message: `${head} reads back ${status}, expected ${allowed.join(' or ')} ${by}` });
      }
    }
    turns.forEach((r, i) => {
      if (claimed.has(i)) return;
      if (r.status === CUT_STATUS_WITHOUT_MESSAGE && unmatchedCuts > 0) {
        unmatchedCuts -= 1;
        return;
      }
      violations.push({ kind: 'unexpected', threadId: read.threadId, turn: r.id, processes: [], message: `thread ${read.threadId}: turn ${r.id} (${r.status}) was never sent ${by}` });
    });
  }
  return violations;
}

/**
 * Every stretch of consecutive samples in which one thread's writer lock was held by more than
 * one process, as one violation each (the first sample's time and how many samples saw it).
 */
export function lockViolations(samples: readonly LockSample[], processOf: (pid: number) => string): Violation[] {
  const violations: Violation[] = [];
  /** thread id → the overlap still going on in the previous sample. */
  let open = new Map<string, { key: string; violation: Violation; count: number; firstAt: number }>();
  for (const sample of samples) {
    const byThread = new Map<string, Set<number>>();
    for (const { threadId, pid } of sample.holders) byThread.set(threadId, (byThread.get(threadId) ?? new Set()).add(pid));
    const next = new Map<string, { key: string; violation: Violation; count: number; firstAt: number }>();
    for (const [threadId, pids] of byThread) {
      if (pids.size < 2) continue;
      const sorted = [...pids].sort((a, b) => a - b);
      const key = sorted.join(',');
      const ongoing = open.get(threadId);
      if (ongoing?.key === key) {
        ongoing.count += 1;
        next.set(threadId, ongoing);
        continue;
      }
      const processes = sorted.map(processOf);
      const violation: Violation = { kind: 'twoWriters', threadId, turn: null, processes, message: '' };
      violations.push(violation);
      next.set(threadId, { key, violation, count: 1, firstAt: sample.at });
    }
    for (const [threadId, o] of open) if (next.get(threadId) !== o) finishLockMessage(o);
    open = next;
  }
  for (const o of open.values()) finishLockMessage(o);
  return violations;
}

function finishLockMessage(o: { violation: Violation; count: number; firstAt: number }): void {
  const v = o.violation;
  v.message = `thread ${v.threadId}: writer lock held at once by ${v.processes.join(' and ')} (kernel lock table at ${o.firstAt.toFixed(1)} ms, ${o.count} sample(s))`;
}
