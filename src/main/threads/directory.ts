// The main thread's directory of threads: every thread this process has registered, the
// sorted list of loaded ids that `thread/loaded/list` pages through, and which threads
// each connection subscribes to. Everything here is synchronous and in memory.
import type { ConnectionId } from '../connections.js';
import type { LoadedThread } from './loaded-thread.js';
import { EncodedJson } from '../protocol/encoded-json.js';

/** A page of loaded thread ids, as `thread/loaded/list` returns it. */
export interface LoadedPage {
  data: string[];
  nextCursor: string | null;
}

export class ThreadDirectory {
  readonly #threads = new Map<string, LoadedThread>();
  /** Ids of threads in `loaded` or `unloading`, kept sorted as strings. */
  readonly #listed: string[] = [];
  /** The whole list as `thread/loaded/list` answers it unpaged, serialized once per change of the list. */
  #fullPage: EncodedJson | null = null;

  get(id: string): LoadedThread | undefined {
    return this.#threads.get(id);
  }

  /** Registers a thread before any await, so concurrent requests find the same instance. */
  register(thread: LoadedThread): void {
    if (this.#threads.has(thread.id)) throw new Error(`thread ${thread.id} is already registered`);
    this.#threads.set(thread.id, thread);
  }

  /** Makes a registered thread visible in `thread/loaded/list`. */
  list(thread: LoadedThread): void {
    const index = lowerBound(this.#listed, thread.id);
    if (this.#listed[index] !== thread.id) {
      this.#listed.splice(index, 0, thread.id);
      this.#fullPage = null;
    }
  }

  /** Removes `thread` only if it is still the registered instance; returns whether it was. */
  remove(thread: LoadedThread): boolean {
    if (this.#threads.get(thread.id) !== thread) return false;
    this.#threads.delete(thread.id);
    const index = lowerBound(this.#listed, thread.id);
    if (this.#listed[index] === thread.id) {
      this.#listed.splice(index, 1);
      this.#fullPage = null;
    }
    return true;
  }

  /** Registered threads in any state but unloaded: each holds (or is acquiring) descriptors. */
  get registeredCount(): number {
    return this.#threads.size;
  }

  /** Listed (loaded or unloading) threads. */
  get loadedCount(): number {
    return this.#listed.length;
  }

  all(): LoadedThread[] {
    return [...this.#threads.values()];
  }

  /** Threads `connection` subscribes to. */
  subscribedBy(connection: ConnectionId): LoadedThread[] {
    const result: LoadedThread[] = [];
    for (const thread of this.#threads.values()) if (thread.subscribers.has(connection)) result.push(thread);
    return result;
  }

  /**
   * Every loaded id, serialized as the unpaged page (`{"data":[…],"nextCursor":null}`). Kept
   * until the list changes: clients that poll the whole list ask again and again, and at
   * thousands of threads serializing it per request was the list's largest cost (bench case
   * `scale`, the full list).
   */
  fullPage(): EncodedJson {
    return (this.#fullPage ??= new EncodedJson(JSON.stringify(this.page(null, null))));
  }

  /**
   * One page of loaded ids after `cursor` (exclusive; a cursor that is no longer loaded
   * starts at its insertion point), at most `limit` long (`null` = all).
   */
  page(cursor: string | null, limit: number | null): LoadedPage {
    let start = 0;
    if (cursor !== null) {
      start = lowerBound(this.#listed, cursor);
      if (this.#listed[start] === cursor) start += 1;
    }
    const end = limit === null ? this.#listed.length : Math.min(this.#listed.length, start + Math.max(limit, 1));
    const data = this.#listed.slice(start, end);
    const nextCursor = end < this.#listed.length && data.length > 0 ? data[data.length - 1]! : null;
    return { data, nextCursor };
  }
}

function lowerBound(sorted: readonly string[], value: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low;
}
