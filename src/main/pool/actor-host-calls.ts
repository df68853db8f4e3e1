// The main thread's calls into one worker's ActorHost, over comlink. comlink builds a new
// proxy for every property read of a remote (`remote.close` is a proxy for the path `close`)
// and registers it with a FinalizationRegistry, so `remote.close(id)` written at each call
// site costs a Proxy, its closure and a WeakCell per call: garbage that waits for a GC and then
// for the registry's cleanup task (thousands of them were pending in a heap snapshot after
// 10,000 threads came and went). Each method's proxy is read once here, when the worker is
// attached, and called for the worker's life; a call is then only comlink's message.
import type * as Comlink from 'comlink';
import type { ActorHostApi } from '../../common/actor-messages.js';

/** One callable per ActorHostApi method, each bound to the worker's remote once. */
export type ActorHostCalls = { readonly [Method in keyof ActorHostApi]: Comlink.Remote<ActorHostApi>[Method] };

// Every method of ActorHostApi, checked both ways below: a method added to the interface and
// not here fails to compile, as does a name here the interface does not have.
const METHODS = ['spawn', 'startTurn', 'interrupt', 'revokeWriter', 'close', 'ping', 'retire'] as const satisfies ReadonlyArray<keyof ActorHostApi>;
type Unlisted = Exclude<keyof ActorHostApi, (typeof METHODS)[number]>;
const everyMethodListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyMethodListed;

/** Reads each method's proxy from `remote` once. */
export function actorHostCalls(remote: Comlink.Remote<ActorHostApi>): ActorHostCalls {
  const calls: Partial<Record<keyof ActorHostApi, unknown>> = {};
  for (const method of METHODS) calls[method] = remote[method];
  return Object.freeze(calls) as ActorHostCalls;
}
