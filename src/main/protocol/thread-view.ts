// The wire `Thread` object of a loaded thread (src/common/thread-object.ts builds it), and the
// settings block shared by the thread/start and thread/resume responses. Key order and
// explicit nulls follow what codex 0.171.0 writes.
import type { LoadedThread } from '../threads/loaded-thread.js';
import type { ThreadSettings } from '../../common/actor-messages.js';
import type { Turn } from '../../common/wire-types.js';
import { threadObject, type SerializedJson } from '../../common/thread-object.js';

/** thread-host's own version: `cliVersion` of the threads it writes, its product token in `userAgent`. */
export const HOST_VERSION = '0.1.0';

/**
 * The reference version whose protocol thread-host speaks. Clients read the version after the
 * originator in `userAgent` as the server's protocol version (the reference's interactive
 * client warns when it is older than its own), so that slot carries this one.
 */
export const PROTOCOL_VERSION = '0.171.0';

/** A loaded thread as the wire shows it; `turns` only when asked for (resume, read), maybe already serialized. */
export function loadedThreadView(thread: LoadedThread, turns: Turn[] | SerializedJson | null): Record<string, unknown> {
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
    forkedFromId: identity.forkedFromId ?? null,
    turns: turns ?? [],
  });
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
    activePermissionProfile: settings.permissionProfile === undefined ? null : { id: settings.permissionProfile, extends: null },
    reasoningEffort: settings.effort,
  };
}
