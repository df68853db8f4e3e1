// The messages a connection received that no request claimed (notifications, server requests,
// replies to hand-written requests), kept in arrival order until someone waits for them. A
// wait takes the oldest kept message that matches, or the next one to arrive. A scan per wait
// suits a test or a demo; a bench watching thousands of threads keys its own buffer instead
// (bench/lib/notification-buffer.ts) and turns this one off.
import type { Message } from './rpc-messages.js';

interface Waiter {
  test: (message: Message) => boolean;
  resolve: (message: Message) => void;
}

export class MessageInbox {
  #kept: Message[] = [];
  readonly #waiters: Waiter[] = [];

  constructor(private readonly keep: boolean) {}

  /** Hands `message` to the oldest waiter it matches, or keeps it (when keeping). */
  deliver(message: Message): void {
    if (this.#waiters.length > 0) {
      const index = this.#waiters.findIndex((w) => w.test(message));
      if (index >= 0) {
        this.#waiters.splice(index, 1)[0]!.resolve(message);
        return;
      }
    }
    if (this.keep) this.#kept.push(message);
  }

  /** The oldest kept message matching `test` (removed), or the next to arrive; `cancel` withdraws. */
  take(test: (message: Message) => boolean): { message: Promise<Message>; cancel: () => void } {
    const index = this.#kept.findIndex(test);
    if (index >= 0) return { message: Promise.resolve(this.#kept.splice(index, 1)[0]!), cancel: () => undefined };
    let waiter: Waiter | undefined;
    const message = new Promise<Message>((resolve) => {
      waiter = { test, resolve };
      this.#waiters.push(waiter);
    });
    const cancel = (): void => {
      const at = this.#waiters.indexOf(waiter!);
      if (at >= 0) this.#waiters.splice(at, 1);
    };
    return { message, cancel };
  }

  /** Drops what is kept, e.g. between phases sharing one connection. */
  clear(): void {
    this.#kept = [];
  }
}
