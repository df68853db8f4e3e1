// The append-only JSON-lines files the host keeps per thread in the home (session_index.jsonl,
// thread-host-metadata.jsonl): read whole once, at start, before any request is served; after
// that only appended to, each line in one write(2) with O_APPEND (a line this short never
// interleaves with another process's appends), with a deadline (fs-deadline.ts).
import { readFileSync } from 'node:fs';
import type { LogFn } from '../../../common/log.js';
import { fsPromises } from '../../lazy-builtin.js';
import { withFsDeadline } from './fs-deadline.js';

/** The file's lines, or none when it does not exist (logged when it cannot be read). */
export function readLinesAtStart(path: string, log: LogFn, what: string): string[] {
  try {
    return readFileSync(path, 'utf8').split('\n');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') log('warn', `cannot read ${what}`, { path, error: String(error) });
    return [];
  }
}

/** Appends one JSON line; rejects with an RpcError when the write fails or passes its deadline. */
export function appendLine(path: string, entry: unknown): Promise<void> {
  return withFsDeadline(fsPromises().appendFile(path, `${JSON.stringify(entry)}\n`, { flag: 'a' }), `writing ${path}`);
}
