// How many threads this process can hold loaded before a new load would starve the ones it
// already has of file descriptors. Computed once at start from the open-file limit.
//
// Node raises its soft RLIMIT_NOFILE to the hard limit itself at startup (PlatformInit in
// node.cc), and offers no setrlimit to do more, so the soft limit read here is already the
// most this process can have: raising it further takes the hard limit (`ulimit -Hn`).
import { readFileSync } from 'node:fs';
import type { LogFn } from '../../common/log.js';
import { builtin } from '../lazy-builtin.js';
import { CODEX_STATE_MIRROR_WORKERS } from '../store/files/codex-state-mirror.js';
import { STORED_HISTORY_WORKERS } from '../store/stored-history.js';

/** Where the open-file limit came from, for the "host is full" message and the log. */
export interface OpenFileLimit {
  soft: number;
  hard: number | null;
}

// What one loaded thread may hold open at once: its writer-lock file (held for its life), its
// rollout (opened at the first turn, held until unload) and its model stream's socket.
export const DESCRIPTORS_PER_THREAD = 3;
// What the host needs whatever its load: stdio, the event loops' epoll and eventfds, worker
// message pipes (28 for a host with 2 workers, counted in /proc), plus transient opens that
// must not fail under load: the coordination lock, a cold resume reading its rollout, sessions/
// scans, the lock janitor (bench case `full-host` runs a host at this budget).
export const FIXED_RESERVE = 64;
// Each worker thread's event loop and message ports (4 descriptors, counted): the pool's, and
// the dedicated workers (the line parser, stored history's listing and reading, and the mirror
// into the reference's state databases), which start on first use.
export const RESERVE_PER_WORKER = 4;
const DEDICATED_WORKERS = 1 + STORED_HISTORY_WORKERS + CODEX_STATE_MIRROR_WORKERS;

/** The soft and hard open-file limits; null when the platform tells us neither. */
export function readOpenFileLimit(): OpenFileLimit | null {
  return fromProcLimits() ?? fromShell();
}

/** Threads that fit in `limit` descriptors beside the fixed reserve and `workers` pool workers; at least 1. */
export function maxLoadedThreadsFor(limit: number, workers: number): number {
  const available = limit - FIXED_RESERVE - RESERVE_PER_WORKER * (workers + DEDICATED_WORKERS);
  return Math.max(1, Math.floor(available / DESCRIPTORS_PER_THREAD));
}

// Linux: one small read, no child process.
function fromProcLimits(): OpenFileLimit | null {
  let text: string;
  try {
    text = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return null;
  }
  return parseProcLimits(text);
}

/** Parses the "Max open files" row of /proc/<pid>/limits. */
export function parseProcLimits(text: string): OpenFileLimit | null {
  const row = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  if (!row) return null;
  const soft = limitValue(row[1]!);
  if (soft === null) return null;
  return { soft, hard: limitValue(row[2]!) };
}

// Elsewhere (macOS, the BSDs): ask a shell once. Only at start, and bounded.
function fromShell(): OpenFileLimit | null {
  try {
    const { execFileSync } = builtin<typeof import('node:child_process')>('node:child_process');
    const out = execFileSync('/bin/sh', ['-c', 'ulimit -Sn; ulimit -Hn'], { encoding: 'utf8', timeout: 2_000 });
    const [soft, hard] = out.trim().split(/\s+/).map(limitValue);
    return soft === null || soft === undefined ? null : { soft, hard: hard ?? null };
  } catch {
    return null;
  }
}

function limitValue(text: string): number | null {
  if (text === 'unlimited') return Number.MAX_SAFE_INTEGER;
  const n = Number(text);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

// When the platform tells us nothing, assume the common default soft limit.
const ASSUMED_OPEN_FILE_LIMIT = 1024;

/** The host's `max_loaded_threads` and what a client should raise when it is reached. */
export interface LoadLimit {
  maxLoadedThreads: number;
  remedy: string;
}

/** `configured` wins; otherwise the open-file limit decides. Logs what was chosen and why. */
export function loadLimitFor(
  configured: number | null,
  workers: number,
  limit: OpenFileLimit | null,
  log: LogFn,
): LoadLimit {
  const soft = limit?.soft ?? ASSUMED_OPEN_FILE_LIMIT;
  const fromBudget = maxLoadedThreadsFor(soft, workers);
  const fields = { openFileLimit: soft, hardLimit: limit?.hard ?? null, budget: fromBudget };
  if (limit === null) log('warn', `could not read the open-file limit; assuming ${ASSUMED_OPEN_FILE_LIMIT}`, fields);
  if (configured !== null) {
    if (configured > fromBudget) log('warn', 'max_loaded_threads is above what the open-file limit can hold', { ...fields, maxLoadedThreads: configured });
    return { maxLoadedThreads: configured, remedy: `raise max_loaded_threads (now ${configured}) in config.toml or unload threads` };
  }
  log('info', 'max_loaded_threads from the open-file limit', { ...fields, maxLoadedThreads: fromBudget });
  return {
    maxLoadedThreads: fromBudget,
    remedy: `raise the open-file limit (ulimit -n, now ${soft}) or set max_loaded_threads (now ${fromBudget}), or unload threads`,
  };
}
