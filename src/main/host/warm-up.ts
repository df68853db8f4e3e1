// What a host loads in the background once it is up, rather than on the path of the request
// that first needs it: the worker pool (piscina, comlink, two workers), crypto for thread ids
// and the writer locks' native binding. Each step takes a turn of the event loop of its own,
// so requests that arrive meanwhile are answered between them. In `bench start-under-lock`,
// whose first thread/starts come during the hold, the first start loaded crypto (~5 ms) and
// fs-ext (~4 ms) while every other request waited.
import type { HostContext } from '../host-context.js';
import { prepareUuids } from '../protocol/uuid.js';

/** Starts the warm-up. Every step is idempotent, so a second call costs only its turns. */
export function warmUpHost(ctx: Pick<HostContext, 'pool' | 'locks'>): void {
  const steps = [() => ctx.pool.warmUp(), prepareUuids, () => ctx.locks.prepare?.()];
  const next = (): void => {
    steps.shift()!();
    if (steps.length > 0) setImmediate(next).unref();
  };
  next();
}
