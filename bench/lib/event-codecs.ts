// The ways an ActorEvent can cross worker → main. Each thread builds its own instance, as
// the host would (each side keeps its own Packr).
//   msgpackr          Packr.pack() posted as returned (useRecords:false)
//   msgpackr-records  the same with useRecords:true (shape keys sent once per message as a record)
//   msgpackr-copied   production bytes copied to an exact-size buffer and transferred: Packr
//                     returns a view into its shared scratch buffer, and postMessage clones the
//                     whole backing ArrayBuffer (8 KiB+), not the view's few bytes
//   structured-clone  the event object itself, no codec (what the host does)
import { Packr } from 'msgpackr';
import type { ActorEvent } from '../../src/common/actor-messages.js';

// The packing the host used for events before these measurements moved events to
// structured clone (src/common/snapshot-codec.ts keeps msgpackr for resume snapshots).
const plainPackr = new Packr({ useRecords: false, moreTypes: false });
const encodeEvent = (event: ActorEvent): Uint8Array => plainPackr.pack(event);
const decodeEvent = (bytes: Uint8Array): ActorEvent => plainPackr.unpack(bytes) as ActorEvent;

export const CODEC_NAMES = ['msgpackr', 'msgpackr-records', 'msgpackr-copied', 'structured-clone'] as const;
export type CodecName = (typeof CODEC_NAMES)[number];

/** One side's encoder and decoder for a codec. */
export interface EventCodec {
  encode(event: ActorEvent): { message: unknown; transfer: ArrayBuffer[] };
  decode(message: unknown): ActorEvent;
}

export function createCodec(name: CodecName): EventCodec {
  switch (name) {
    case 'msgpackr':
      return { encode: (e) => ({ message: encodeEvent(e), transfer: [] }), decode: (m) => decodeEvent(m as Uint8Array) };
    case 'msgpackr-records': {
      const packr = new Packr({ useRecords: true, moreTypes: false });
      return { encode: (e) => ({ message: packr.pack(e), transfer: [] }), decode: (m) => packr.unpack(m as Uint8Array) as ActorEvent };
    }
    case 'msgpackr-copied':
      return {
        encode: (e) => {
          const exact = new Uint8Array(encodeEvent(e)); // copies just the encoded bytes
          return { message: exact, transfer: [exact.buffer] };
        },
        decode: (m) => decodeEvent(m as Uint8Array),
      };
    case 'structured-clone':
      return { encode: (e) => ({ message: e, transfer: [] }), decode: (m) => m as ActorEvent };
  }
}
