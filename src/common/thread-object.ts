// The wire `Thread` object, field by field in the order codex 0.171.0 writes them, with its
// explicit nulls: built on the main thread for loaded threads (src/main/protocol/thread-view.ts)
// and in the stored-history worker for threads known only from their rollouts.
import type { HistoryMode } from './rollout/rollout-reader.js';
import { spawnedAgent, type SessionSource } from './rollout/session-source.js';
import type { RolloutSummary } from './stored-history-messages.js';
import type { Turn } from './wire-types.js';

const seconds = (ms: number): number => Math.floor(ms / 1000);

/**
 * The provider a thread read from disk is shown with: the one its rollout records, or, for one
 * recording none (older rollouts) or an empty one, config.toml's `model_provider`, as the
 * reference shows it; where the config names none, the reference's default, `openai` (what
 * such a rollout ran with: thread-host's own rollouts always record theirs).
 */
export function threadProviderOf(recorded: string | null, namedModelProvider: string | null): string {
  return recorded || namedModelProvider || REFERENCE_DEFAULT_PROVIDER;
}

const REFERENCE_DEFAULT_PROVIDER = 'openai';

/** A thread known only from disk (status notLoaded), with `turns` when they are asked for. */
export function storedThreadView(stored: RolloutSummary, turns: Turn[], namedModelProvider: string | null): Record<string, unknown> {
  return threadObject({
    id: stored.threadId,
    environments: null,
    preview: stored.preview,
    ephemeral: false,
    modelProvider: threadProviderOf(stored.modelProvider, namedModelProvider),
    model: stored.model,
    reasoningEffort: null,
    createdAtMs: stored.createdAtMs,
    updatedAtMs: stored.updatedAtMs,
    status: { type: 'notLoaded' },
    path: stored.path,
    cwd: stored.cwd,
    cliVersion: stored.cliVersion,
    originator: stored.originator,
    source: stored.source,
    canAcceptDirectInput: null,
    historyMode: stored.historyMode,
    turns,
  });
}

/** JSON already serialized (src/main/protocol/encoded-json.ts), placed as it is when the object is sent. */
export interface SerializedJson {
  readonly bytes: Uint8Array;
  toJSON(): unknown;
}

/** Every field of a `Thread` that differs between threads. */
export interface ThreadFields {
  id: string;
  environments: unknown;
  preview: string;
  ephemeral: boolean;
  modelProvider: string;
  model: string | null;
  reasoningEffort: string | null;
  createdAtMs: number;
  updatedAtMs: number;
  status: unknown;
  path: string | null;
  cwd: string;
  cliVersion: string;
  originator: string;
  source: SessionSource;
  canAcceptDirectInput: boolean | null;
  historyMode: HistoryMode;
  /** Absent: no fork (a listing row shows none, as the reference's do). */
  forkedFromId?: string | null;
  turns: Turn[] | SerializedJson;
}

export function threadObject(f: ThreadFields): Record<string, unknown> {
  return {
    id: f.id,
    environments: f.environments,
    extra: null,
    sessionId: f.id,
    forkedFromId: f.forkedFromId ?? null,
    attachedToThreadId: null,
    parentThreadId: null,
    preview: f.preview,
    ephemeral: f.ephemeral,
    section: null,
    sectionEnteredAt: null,
    projectId: null,
    historyMode: f.historyMode,
    modelProvider: f.modelProvider,
    model: f.model,
    reasoningEffort: f.reasoningEffort,
    createdAt: seconds(f.createdAtMs),
    updatedAt: seconds(f.updatedAtMs),
    recencyAt: seconds(f.updatedAtMs),
    status: f.status,
    path: f.path,
    cwd: f.cwd,
    cliVersion: f.cliVersion,
    originator: f.originator,
    source: f.source,
    canAcceptDirectInput: f.canAcceptDirectInput,
    threadSource: null,
    ...spawnedAgent(f.source),
    gitInfo: null,
    name: null,
    daybreakEnabled: null,
    turns: f.turns,
  };
}
