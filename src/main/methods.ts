// The method table: each served method's params decoder and handler. The router consults it
// after the envelope checks; handlers get typed params and never see raw JSON.
import type { Connection } from './connections.js';
import { initialize } from './handlers/initialize.js';
import { threadList } from './handlers/thread-list.js';
import { threadRead } from './handlers/thread-read.js';
import { threadResume } from './handlers/thread-resume.js';
import { threadStart } from './handlers/thread-start.js';
import { threadTurnsList } from './handlers/thread-turns-list.js';
import { threadItemsList } from './handlers/thread-items-list.js';
import { threadLoadedList } from './handlers/thread-loaded-list.js';
import { threadUnsubscribe } from './handlers/thread-unsubscribe.js';
import { turnInterrupt, turnStart } from './handlers/turn.js';
import type { HostContext } from './host-context.js';
import type { Decoder } from './protocol/decode.js';
import * as P from './protocol/method-params.js';

export type AfterReply = (effect: () => void) => void;
export type Handler<T> = (ctx: HostContext, connection: Connection, params: T, afterReply: AfterReply) => unknown;

export interface MethodSpec<T = unknown> {
  decode: Decoder<T>;
  handle: Handler<T>;
}

const spec = <T>(decode: Decoder<T>, handle: Handler<T>): MethodSpec => ({ decode, handle }) as MethodSpec;

export const METHODS: ReadonlyMap<string, MethodSpec> = new Map([
  ['initialize', spec(P.initializeParams, initialize)],
  ['thread/start', spec(P.threadStartParams, threadStart)],
  ['thread/resume', spec(P.threadResumeParams, threadResume)],
  ['thread/unsubscribe', spec(P.threadIdParams, threadUnsubscribe)],
  ['thread/loaded/list', spec(P.threadLoadedListParams, threadLoadedList)],
  ['thread/read', spec(P.threadReadParams, threadRead)],
  ['thread/list', spec(P.threadListParams, threadList)],
  ['thread/turns/list', spec(P.threadTurnsListParams, threadTurnsList)],
  ['thread/items/list', spec(P.threadItemsListParams, threadItemsList)],
  ['turn/start', spec(P.turnStartParams, turnStart)],
  ['turn/interrupt', spec(P.turnInterruptParams, turnInterrupt)],
]);
