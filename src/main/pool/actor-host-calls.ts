// The main thread's calls into one worker's ActorHost, over comlink. comlink builds a new
// proxy for every property read of a remote (`remote.close` is a proxy for the path `close`)
// and registers it with a FinalizationRegistry, so `remote.close(id)` written at each call
// site costs a Proxy, its closure and a WeakCell per call: garbage that waits for a GC and then
// for the registry's cleanup task (thousands of them were pending in a heap snapshot after
// 10,000 threads came and went). Each method's proxy is read once here, when the worker is
// attached, and called for the worker's life; a call is then only comlink's message.
//
// comlink's "released" flag belongs to each proxy, so releasing the remote does not stop its
// method proxies: a call after `release()` would post to a closed port and never settle, and
// release drops the answers calls in flight wait for. The calls here check their own flag and
// reject, and release rejects the calls still in flight.
import type * as Comlink from 'comlink';
import type { ActorHostApi } from '../../common/actor-messages.js';

/** One callable per ActorHostApi method, each bound to the worker's remote once. */
export type ActorHostCalls = { readonly [Method in keyof ActorHostApi]: Comlink.Remote<ActorHostApi>[Method] };

/** A worker's calls, and the release of the remote they go through. */
export interface ActorHostLink {
  readonly api: ActorHostCalls;
  /** Releases the remote; every later call rejects. Idempotent. */
  release(): void;
}

// Every method of ActorHostApi, checked both ways below: a method added to the interface and
// not here fails to compile, as does a name here the interface does not have.
const METHODS = ['spawn', 'startTurn', 'steerTurn', 'startCompaction', 'interrupt', 'answerTool', 'recordItem', 'answerHostTools', 'recordUserShell', 'revokeWriter', 'close', 'closeMany', 'ping', 'retire'] as const satisfies ReadonlyArray<keyof ActorHostApi>;
type Unlisted = Exclude<keyof ActorHostApi, (typeof METHODS)[number]>;
const everyMethodListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyMethodListed;

/** Reads each method's proxy from `remote` once; `releaseProxy` is comlink's symbol. */
export function actorHostCalls(remote: Comlink.Remote<ActorHostApi>, releaseProxy: typeof Comlink.releaseProxy): ActorHostLink {
  let released = false;
  const inFlight = new Set<(error: Error) => void>();
  const calls: Partial<Record<keyof ActorHostApi, unknown>> = {};
  for (const method of METHODS) {
    const proxy = remote[method] as unknown as (...args: unknown[]) => Promise<unknown>;
    calls[method] = (...args: unknown[]): Promise<unknown> => {
      if (released) return Promise.reject(new Error(`the worker's ActorHost was released; ${method} not sent`));
      return new Promise((resolve, reject) => {
        inFlight.add(reject);
        proxy(...args)
          .then(resolve, reject)
          .finally(() => inFlight.delete(reject));
      });
    };
  }
  return {
    api: Object.freeze(calls) as ActorHostCalls,
    release() {
      if (released) return;
      released = true;
      remote[releaseProxy]();
      for (const reject of inFlight) reject(new Error("the worker's ActorHost was released before it answered"));
      inFlight.clear();
    },
  };
}
