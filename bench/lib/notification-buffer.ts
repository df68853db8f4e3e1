// Notifications keyed by (method, thread id), so that 10,000 threads each waiting for its
// `thread/closed` cost a map lookup per line instead of a scan of every waiter. Unclaimed
// notifications are kept, oldest dropped first, so a wait registered just after its
// notification arrived still sees it.
//
//   deliver(n) ──> waiters[key] non-empty? ──yes──> resolve the oldest waiter
//                              │no
//                              v
//                 buffered[key].push(n); order.push(n) ── over MAX_BUFFERED: drop order's head

// Wire JSON is read field by field in scenario code; typing each method would be one wrapper per method.
export type Json = Record<string, any>;

/** A notification's params with the `performance.now()` at which its line was read. */
export interface Arrival {
  params: Json;
  at: number;
}

/** Far above any scenario's backlog: 10,000 threads × (started, status, closed). */
const MAX_BUFFERED = 50_000;

/** The key a notification is filed under: its method and the thread it is about. */
export function notificationKey(method: string, threadId: string): string {
  return `${method}\u0000${threadId}`;
}

/** The thread a notification is about: `params.threadId`, or `params.thread.id`. */
function threadIdOf(params: Json): string {
  return String(params.threadId ?? params.thread?.id ?? '');
}

type Entry = Arrival & { key: string };

export class NotificationBuffer {
  /**
   * `keepUnclaimed: false` drops a notification nobody waits for: a client among hundreds
   * (fanout) that only ever waits for what it is about to cause.
   */
  constructor(private readonly options: { keepUnclaimed: boolean } = { keepUnclaimed: true }) {}

  readonly #waiters = new Map<string, Array<(arrival: Arrival) => void>>();
  readonly #buffered = new Map<string, Entry[]>();
  /** Every buffered entry in arrival order; `#head` skips the evicted prefix without shifting. */
  #order: Entry[] = [];
  #head = 0;
  #size = 0;

  deliver(method: string, params: Json, at: number): void {
    const key = notificationKey(method, threadIdOf(params));
    const waiters = this.#waiters.get(key);
    if (waiters !== undefined && waiters.length > 0) {
      waiters.shift()!({ params, at });
      if (waiters.length === 0) this.#waiters.delete(key);
      return;
    }
    if (!this.options.keepUnclaimed) return;
    const entry: Entry = { key, params, at };
    const list = this.#buffered.get(key);
    if (list === undefined) this.#buffered.set(key, [entry]);
    else list.push(entry);
    this.#order.push(entry);
    this.#size += 1;
    if (this.#size > MAX_BUFFERED) this.#evictOldest();
    // Consumed entries stay in #order until here: drop them before they outnumber live ones.
    if (this.#order.length - this.#head > 2 * MAX_BUFFERED) {
      this.#order = this.#order.slice(this.#head).filter((e) => e.key !== '');
      this.#head = 0;
    }
  }

  /** The oldest buffered arrival for `key`, or a promise of the next; `cancel` withdraws the wait. */
  wait(key: string): { arrival: Promise<Arrival>; cancel: () => void } {
    const kept = this.tryTake(key);
    if (kept !== undefined) return { arrival: Promise.resolve(kept), cancel: () => undefined };
    let resolver: ((arrival: Arrival) => void) | undefined;
    const arrival = new Promise<Arrival>((resolve) => {
      resolver = resolve;
      const waiters = this.#waiters.get(key);
      if (waiters === undefined) this.#waiters.set(key, [resolve]);
      else waiters.push(resolve);
    });
    const cancel = (): void => {
      const waiters = this.#waiters.get(key);
      const index = waiters?.indexOf(resolver!) ?? -1;
      if (index >= 0) waiters!.splice(index, 1);
      if (waiters?.length === 0) this.#waiters.delete(key);
    };
    return { arrival, cancel };
  }

  /** The oldest buffered arrival for `key`, taken out of the buffer; undefined when none is kept. */
  tryTake(key: string): Arrival | undefined {
    const list = this.#buffered.get(key);
    if (list === undefined || list.length === 0) return undefined;
    const entry = list.shift()!;
    if (list.length === 0) this.#buffered.delete(key);
    this.#size -= 1;
    entry.key = ''; // consumed: eviction skips it
    return { params: entry.params, at: entry.at };
  }

  clear(): void {
    this.#buffered.clear();
    this.#order = [];
    this.#head = 0;
    this.#size = 0;
  }

  #evictOldest(): void {
    while (this.#head < this.#order.length) {
      const entry = this.#order[this.#head++]!;
      if (entry.key === '') continue; // already consumed
      const list = this.#buffered.get(entry.key)!;
      list.shift(); // per-key lists are in arrival order too, so the oldest is first
      if (list.length === 0) this.#buffered.delete(entry.key);
      this.#size -= 1;
      break;
    }
    // Compact once the dead prefix dominates, so the array does not grow for ever.
    if (this.#head > 4096 && this.#head * 2 > this.#order.length) {
      this.#order = this.#order.slice(this.#head);
      this.#head = 0;
    }
  }
}
