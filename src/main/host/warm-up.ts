// What a host loads in the background once it is up, rather than on the path of the request
// that first needs it: the worker pool (piscina, comlink, two workers), crypto for thread ids,
// the writer locks' native binding, fs/promises for finding and reading rollouts, and the time
// zone. Each step takes an event-loop iteration of its own (scheduling.ts), so requests that
// arrive meanwhile are answered between them. In bench case `start-under-lock`, whose first
// thread/starts come during the hold, the first start loaded crypto and fs-ext while every
// other request waited; in `resume-under-lock`, the first cold resume loaded fs/promises in
// front of the other 31 and the probe behind them.
// A rollout's file name is in local time, and a process's first local-time reading loads the
// time zone: the first thread/start paid it.
import type { HostContext } from '../host-context.js';
import { fsPromises } from '../lazy-builtin.js';
import { inOwnIteration } from '../scheduling.js';
import { prepareUuids } from '../protocol/uuid.js';

const warmed = new WeakSet<object>();

/** Starts the warm-up, once per host (both the start's timer and the first request call it). */
export function warmUpHost(ctx: Pick<HostContext, 'pool' | 'locks' | 'log'>): void {
  if (warmed.has(ctx)) return;
  warmed.add(ctx);
  ctx.pool.warmUp();
  const steps: Array<[string, () => void]> = [
    ['ids', prepareUuids],
    ['writer locks', () => ctx.locks.prepare?.()],
    ['file system', () => void fsPromises()],
    ['local time', () => void new Date().getHours()],
  ];
  // A step that fails (a native binding that does not load) is only logged: the request that
  // needs it meets the same failure and answers it.
  for (const [name, step] of steps) {
    inOwnIteration(() => {
      try {
        step();
      } catch (error) {
        ctx.log('warn', 'a warm-up step failed', { step: name, error: String(error) });
      }
    });
  }
}
