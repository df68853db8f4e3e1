// Every message between the main thread and the line-parser worker (workers/line-parser.ts),
// which parses input lines too large to parse on the main thread without stalling it. One
// request at a time is in the worker; the main thread matches the reply by `job`.
import type { LineOutcome } from './line-outcome.js';
import type { TransferredJson } from './parsed-json-transfer.js';

/** Main → worker: one line's bytes, undecoded, in segments whose ArrayBuffers are transferred. */
export interface ParseRequest {
  job: number;
  segments: Uint8Array[];
}

/** A LineOutcome as posted: a parsed value in its transfer form (parsed-json-transfer.ts). */
export type TransferredOutcome = Exclude<LineOutcome, { kind: 'parsed' }> | { kind: 'parsed'; parsed: TransferredJson };

/** Worker → main: how the line of `job` read. */
export interface ParseReply {
  job: number;
  outcome: TransferredOutcome;
}
