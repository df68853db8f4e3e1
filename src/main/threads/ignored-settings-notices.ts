// How a client hears of configuration keys nobody reads (config/unrecognized-settings.ts), as
// codex 0.171.0 tells it (probed): a `configWarning` once the client has initialized, naming
// config.toml's and `-c`'s; another before a thread/start or resume answers when the request's
// own `config` map adds some; and a thread `warning` with the same text for every thread
// started or loaded by a resume.
import { withOverrides } from '../config/config-document.js';
import { unrecognizedKeys, unrecognizedSettingsWarning } from '../config/unrecognized-settings.js';
import type { ConnectionId } from '../connections.js';
import type { HostContext } from '../host-context.js';

// The host document's own warning, worked out once per document: a reload replaces the layers.
let hostWarning: { user: unknown; userFile: string; flags: unknown; warning: string | null } | null = null;

/** The warning for a thread configured by the host's document with `requestConfig` over its `-c` layer. */
export function ignoredSettingsWarning(ctx: HostContext, requestConfig: Record<string, unknown> | null): string | null {
  const { user, userFile, flags } = ctx.configLayers;
  if (requestConfig === null && hostWarning?.user === user && hostWarning.userFile === userFile && hostWarning.flags === flags) return hostWarning.warning;
  const sessionFlags = requestConfig === null ? flags : withOverrides(flags ?? {}, requestConfig);
  const warning = unrecognizedSettingsWarning([
    { layer: { type: 'sessionFlags' }, keys: sessionFlags === null ? [] : unrecognizedKeys(sessionFlags) },
    { layer: { type: 'user', file: userFile }, keys: unrecognizedKeys(user) },
  ]);
  if (requestConfig === null) hostWarning = { user, userFile, flags, warning };
  return warning;
}

/** After `initialize` answers: the host document's warning, if any. */
export function warnClientOfIgnoredSettings(ctx: HostContext, connectionId: ConnectionId): void {
  const summary = ignoredSettingsWarning(ctx, null);
  if (summary !== null) ctx.outgoing.notify(connectionId, 'configWarning', { summary, details: null });
}

/** Before a thread/start or resume answers: when the request's `config` map changes the warning. */
export function warnRequestOfIgnoredSettings(ctx: HostContext, connectionId: ConnectionId, requestConfig: Record<string, unknown> | null, warning: string | null): void {
  if (requestConfig === null || warning === null || warning === ignoredSettingsWarning(ctx, null)) return;
  ctx.outgoing.notify(connectionId, 'configWarning', { summary: warning, details: null });
}

/** The thread's own `warning`, to the client that started or resumed it. */
export function warnThreadOfIgnoredSettings(ctx: HostContext, connectionId: ConnectionId, threadId: string, warning: string | null): void {
  if (warning !== null) ctx.outgoing.notifyMany([connectionId], 'warning', { threadId, message: warning });
}
