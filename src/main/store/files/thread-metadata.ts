// What `thread/metadata/update` sets (a thread's Git facts and its Daybreak choice). codex
// 0.171.0 keeps them only in its state database (state_5.sqlite), which thread-host does not
// write, so thread-host keeps its own durable copy: $CODEX_HOME/thread-host-metadata.jsonl,
// one line appended per update holding the thread's whole metadata after it,
//   {"id":"<thread id>","git_info":{"sha":…,"branch":…,"origin_url":…}|null,"daybreak_enabled":true|false|null,"updated_at":"<RFC 3339>"}
// the last line of an id giving it. As with session_index.jsonl (thread-names.ts) the file
// is read once at start, answers come from memory, and an update is an append (home-lines.ts).
// Neither side sees the other's: the reference does not read this file, nor thread-host the
// reference's database.
import { join } from 'node:path';
import type { LogFn } from '../../../common/log.js';
import type { ThreadMetadataView } from '../../../common/stored-history-messages.js';
import { appendLine, readLinesAtStart } from './home-lines.js';
import { threadIdOf, type ThreadId } from '../../../common/thread-id.js';

export const METADATA_FILE = 'thread-host-metadata.jsonl';

type GitInfo = NonNullable<ThreadMetadataView['gitInfo']>;

/** A patch as the client sends it: a field left out stays, null clears it. */
export interface ThreadMetadataPatch {
  gitInfo: { sha?: string | null; branch?: string | null; originUrl?: string | null } | null;
  daybreakEnabled: boolean | null;
}

export class ThreadMetadata {
  readonly #byId: Map<string, ThreadMetadataView>;
  readonly #path: string;

  constructor(home: string, log: LogFn) {
    this.#path = join(home, METADATA_FILE);
    this.#byId = metadataIn(readLinesAtStart(this.#path, log, 'thread metadata'));
  }

  /** The thread's metadata, or null when nothing was ever set. */
  get(threadId: ThreadId): ThreadMetadataView | null {
    return this.#byId.get(threadId) ?? null;
  }

  /** Applies the patch, appends the result, then remembers it; rejects when the append fails. */
  async update(threadId: ThreadId, patch: ThreadMetadataPatch, nowMs: number): Promise<ThreadMetadataView> {
    const id = threadId;
    const before = this.#byId.get(id) ?? { gitInfo: null, daybreakEnabled: null };
    const after: ThreadMetadataView = { gitInfo: patchedGitInfo(before.gitInfo, patch.gitInfo), daybreakEnabled: patch.daybreakEnabled ?? before.daybreakEnabled };
    await this.#append(id, after, nowMs);
    this.#byId.set(id, after);
    return after;
  }

  /** Forgets a deleted thread's metadata (a line saying it has none). */
  async forget(threadId: ThreadId, nowMs: number): Promise<void> {
    const id = threadId;
    if (!this.#byId.has(id)) return;
    await this.#append(id, { gitInfo: null, daybreakEnabled: null }, nowMs);
    this.#byId.delete(id);
  }

  async #append(id: string, metadata: ThreadMetadataView, nowMs: number): Promise<void> {
    const git = metadata.gitInfo;
    await appendLine(this.#path, {
      id,
      git_info: git === null ? null : { sha: git.sha, branch: git.branch, origin_url: git.originUrl },
      daybreak_enabled: metadata.daybreakEnabled,
      updated_at: new Date(nowMs).toISOString(),
    });
  }
}

/**
 * The metadata a file of these lines gives, by thread id: the last line of an id wins, and one
 * with nothing set forgets it. Lines of another shape, or torn by a crash, are skipped. (Pure:
 * `fleet import` reads a home's metadata with it too.)
 */
export function metadataIn(lines: Iterable<string>): Map<string, ThreadMetadataView> {
  const byId = new Map<string, ThreadMetadataView>();
  for (const line of lines) learnMetadataLine(byId, line);
  return byId;
}

function learnMetadataLine(byId: Map<string, ThreadMetadataView>, line: string): void {
  if (line.trim() === '') return;
  try {
    const entry = JSON.parse(line) as { id?: unknown; git_info?: { sha?: unknown; branch?: unknown; origin_url?: unknown } | null; daybreak_enabled?: unknown };
    if (typeof entry.id !== 'string') return;
    const git = entry.git_info;
    const gitInfo = git === null || typeof git !== 'object' ? null : { sha: text(git.sha), branch: text(git.branch), originUrl: text(git.origin_url) };
    const daybreakEnabled = typeof entry.daybreak_enabled === 'boolean' ? entry.daybreak_enabled : null;
    if (gitInfo === null && daybreakEnabled === null) byId.delete(threadIdOf(entry.id));
    else byId.set(threadIdOf(entry.id), { gitInfo, daybreakEnabled });
  } catch {
    // skipped
  }
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The reference's patch: a field left out stays, null clears it; nothing left is no Git info. */
export function patchedGitInfo(before: GitInfo | null, patch: ThreadMetadataPatch['gitInfo']): GitInfo | null {
  if (patch === null) return before;
  const pick = (key: keyof GitInfo): string | null => (patch[key] === undefined ? (before?.[key] ?? null) : patch[key]!);
  const after = { sha: pick('sha'), branch: pick('branch'), originUrl: pick('originUrl') };
  return after.sha === null && after.branch === null && after.originUrl === null ? null : after;
}
