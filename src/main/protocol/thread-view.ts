// Builds the wire `Thread` object and the settings block shared by the thread/start and
// thread/resume responses. Key order and explicit nulls follow what codex 0.171.0 writes.
import type { LoadedThread } from '../threads/loaded-thread.js';
import type { ThreadSettings } from '../../common/actor-messages.js';
import type { HistoryMode } from '../../common/history/rollout-reader.js';
import type { Turn } from '../../common/wire-types.js';

/** The version thread-host reports as `cliVersion` and in `userAgent`. */
export const HOST_VERSION = '0.1.0';

/** A thread that is not loaded, as `thread/list` and `thread/read` know it from its rollout. */
export interface StoredThread {
  id: string;
  preview: string;
  modelProvider: string;
  model: string | null;
  createdAtMs: number;
  updatedAtMs: number;
  path: string;
  cwd: string;
  cliVersion: string;
  originator: string;
  source: string;
  historyMode: HistoryMode;
  turns: Turn[];
}

const seconds = (ms: number): number => Math.floor(ms / 1000);

/** A loaded thread as the wire shows it; `turns` only when asked for (resume, read). */
export function loadedThreadView(thread: LoadedThread, turns: Turn[] | null): Record<string, unknown> {
  const identity = thread.identity!;
  const settings = thread.settings!;
  return threadObject({
    id: thread.id,
    environments: [{ environmentId: 'local', cwd: settings.cwd, runtimeWorkspaceRoots: [settings.cwd] }],
    preview: thread.preview,
    ephemeral: identity.ephemeral,
    modelProvider: settings.modelProvider,
    model: settings.model,
    reasoningEffort: settings.effort,
    createdAtMs: identity.createdAtMs,
    updatedAtMs: thread.updatedAtMs,
    status: thread.status,
    path: identity.path,
    cwd: settings.cwd,
    cliVersion: identity.cliVersion,
    originator: identity.originator,
    source: identity.source,
    canAcceptDirectInput: true,
    historyMode: thread.historyMode,
    turns: turns ?? [],
  });
}

/** A thread known only from disk (status notLoaded). */
export function storedThreadView(stored: StoredThread, includeTurns: boolean): Record<string, unknown> {
  return threadObject({
    id: stored.id,
    environments: null,
    preview: stored.preview,
    ephemeral: false,
    modelProvider: stored.modelProvider,
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
    turns: includeTurns ? stored.turns : [],
  });
}

interface ThreadFields {
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
  source: string;
  canAcceptDirectInput: boolean | null;
  historyMode: HistoryMode;
  turns: Turn[];
}

function threadObject(f: ThreadFields): Record<string, unknown> {
  return {
    id: f.id,
    environments: f.environments,
    extra: null,
    sessionId: f.id,
    forkedFromId: null,
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
    agentNickname: null,
    agentRole: null,
    gitInfo: null,
    name: null,
    daybreakEnabled: null,
    turns: f.turns,
  };
}

/** `sandbox_mode` as the `SandboxPolicy` the responses carry. */
export function sandboxPolicy(mode: string, cwd: string): Record<string, unknown> {
  if (mode === 'danger-full-access') return { type: 'dangerFullAccess' };
  if (mode === 'workspace-write') {
    return { type: 'workspaceWrite', writableRoots: [cwd], networkAccess: false, excludeTmpdirEnvVar: false, excludeSlashTmp: false };
  }
  return { type: 'readOnly', networkAccess: false };
}

/** The fields after `thread` in thread/start and thread/resume responses. */
export function sessionSettingsView(settings: ThreadSettings): Record<string, unknown> {
  return {
    model: settings.model,
    modelProvider: settings.modelProvider,
    serviceTier: null,
    disabledPluginIds: [],
    cwd: settings.cwd,
    runtimeWorkspaceRoots: [settings.cwd],
    instructionSources: [],
    approvalPolicy: settings.approvalPolicy,
    approvalsReviewer: settings.approvalsReviewer,
    sandbox: sandboxPolicy(settings.sandboxMode, settings.cwd),
    activePermissionProfile: null,
    reasoningEffort: settings.effort,
  };
}
