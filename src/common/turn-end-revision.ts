// The read-state revision a turn's end gives its thread on the PostgreSQL store, the same
// whichever side computes it: the actor stores the turn's read receipt in the statement that
// appends the turn's last lines (fenced-append.ts), and the host announces it from memory
// (src/main/store/postgres/postgres-read-states.ts), each without asking the other. A UUID made from the
// turn id (a turn ends once), so clients see the revision shape they see elsewhere.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The revision the end of turn `turnId` gives its thread's read state. */
export function turnEndRevision(turnId: string): string {
  const { createHash } = require('node:crypto') as typeof import('node:crypto');
  const hex = createHash('sha256').update(`thread-host turn end ${turnId}`).digest('hex');
  // Version 8 (custom) and the RFC variant, so it parses as a UUID.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** What the append that ends a turn also stores of the thread's read state. */
export interface TurnEndReceipt {
  turnId: string;
  revision: string;
}
