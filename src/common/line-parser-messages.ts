// What the main thread and the line-parser worker (workers/line-parser.ts) exchange, inside the
// job envelope of src/main/dedicated-worker.ts: input lines too large to parse on the main
// thread without stalling it, and how each read.
import type { LineOutcome } from './line-outcome.js';
import type { TransferredJson } from './parsed-json-transfer.js';

/** Main → worker: one line's bytes, undecoded, in segments whose ArrayBuffers are transferred. */
export interface ParseRequest {
  segments: Uint8Array[];
}

/** Worker → main: how the line read, a parsed value in its transfer form (parsed-json-transfer.ts). */
export type ParseReply = Exclude<LineOutcome, { kind: 'parsed' }> | { kind: 'parsed'; parsed: TransferredJson };
