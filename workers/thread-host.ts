// The Piscina worker entry. Its one task attaches this worker's ActorHost to the ports the
// main thread sends; after that the worker serves actors over those ports and Piscina only
// supervises its life (atomics are disabled so the event loop keeps running between tasks).
import { threadId } from 'node:worker_threads';
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { AttachTask } from '../src/common/actor-messages.js';
import { ActorHost } from '../src/actors/actor-host.js';
import { lowerThisThreadsPriority } from '../src/common/thread-priority.js';
import { mapStackTraces } from '../src/common/stack-source-maps.js';

// Stacks logged from this worker name the .ts sources, as the main thread's do: frames in the
// files under the folder above this one (dist/ for tsc's output, dist/bundle/ for the bundle).
mapStackTraces(new URL('../', import.meta.url));

// Before any actor runs: the main thread answers requests first (see thread-priority.ts).
lowerThisThreadsPriority();

let host: ActorHost | null = null;

export default function attach(task: AttachTask): number {
  if (host !== null) throw new Error(`worker ${threadId} already hosts actors`);
  // A retired worker ends its thread; Piscina sees it exit and starts a fresh one.
  host = new ActorHost(task.eventPort, () => process.exit(0));
  Comlink.expose(host, nodeEndpoint(task.hostPort as never));
  return threadId;
}
