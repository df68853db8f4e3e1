// What the bench sent in a handoff run, written into the home beside the rollouts: the threads
// and every turn with how it ended. With it a kept home (or a copy with faults planted in its
// rollouts) can be judged again by `thread-host bench handoff --verify-home <dir>`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SentTurn } from './handoff-verdict.js';

/** In the home's root, where no server looks. */
export const LEDGER_FILE = 'handoff-ledger.json';

/** The threads raced for and the turns sent on them. */
export interface HandoffLedger {
  threads: string[];
  sent: SentTurn[];
}

export function writeLedger(home: string, ledger: HandoffLedger): void {
  writeFileSync(join(home, LEDGER_FILE), JSON.stringify(ledger, null, 1) + '\n');
}

export function readLedger(home: string): HandoffLedger {
  const path = join(home, LEDGER_FILE);
  let ledger: Partial<HandoffLedger>;
  try {
    ledger = JSON.parse(readFileSync(path, 'utf8')) as Partial<HandoffLedger>;
  } catch (error) {
    throw new Error(`--verify-home: cannot read ${path}: ${(error as Error).message}`);
  }
  if (!Array.isArray(ledger.threads) || !Array.isArray(ledger.sent)) throw new Error(`--verify-home: ${path} has no threads or sent turns`);
  return { threads: ledger.threads, sent: ledger.sent };
}
