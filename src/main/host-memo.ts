// What a host computes once from what never changes while it runs (its configuration): the
// model catalog, the described config, the resolved host config. Built with the host context
// (host/build-host.ts), so each host has its own and nothing is kept at module level for it.

/** A key for one memoised value, typed by what it holds. */
export type MemoKey<T> = symbol & { readonly __holds?: T };

/** A new key; `name` shows in a debugger. */
export const memoKey = <T>(name: string): MemoKey<T> => Symbol(name) as MemoKey<T>;

/** One host's memoised values. */
export class HostMemo {
  readonly #values = new Map<symbol, unknown>();

  /** The value under `key`, built by `build` the first time it is asked for. */
  once<T>(key: MemoKey<T>, build: () => T): T {
    if (this.#values.has(key)) return this.#values.get(key) as T;
    const value = build();
    this.#values.set(key, value);
    return value;
  }

  /** Drops the value under `key`, built again when next asked for: its input changed (config/mcpServer/reload). */
  forget(key: MemoKey<unknown>): void {
    this.#values.delete(key);
  }
}
