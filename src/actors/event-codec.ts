// Actor events cross from workers to the main thread packed with msgpackr: measured in
// bench/codec.ts against structured clone for the same events (see the README for figures).
// `useRecords` lets msgpackr send each event shape's keys once per structure instead of per
// message.
import { Packr } from 'msgpackr';
import type { ActorEvent } from './actor-messages.js';

// Each side keeps its own Packr; records are self-describing within a message, so the two
// sides never need to share structure state.
const packr = new Packr({ useRecords: false, moreTypes: false });

export function encodeEvent(event: ActorEvent): Uint8Array {
  return packr.pack(event);
}

export function decodeEvent(bytes: Uint8Array): ActorEvent {
  return packr.unpack(bytes) as ActorEvent;
}
