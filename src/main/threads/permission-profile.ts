// thread/start's `permissions`: a named permission profile instead of `sandbox`. Of the
// reference's (codex 0.171.0, probed), the built-in ones are taken: `:read-only`, `:workspace`
// and `:danger-full-access`, each the sandbox mode of that name; a profile of a `[permissions]`
// table is refused as the reference refuses one it does not have, with its texts.
import { invalidRequest } from '../../common/errors.js';

const BUILT_IN: Readonly<Record<string, string>> = {
  ':read-only': 'read-only',
  ':workspace': 'workspace-write',
  ':danger-full-access': 'danger-full-access',
};

/** The sandbox mode a named profile stands for; null when none is named. Throws -32600 as the reference. */
export function sandboxOfProfile(params: { permissions: string | null; sandbox: string | null }): string | null {
  const { permissions } = params;
  if (permissions === null) return null;
  if (params.sandbox !== null) throw invalidRequest('`permissions` cannot be combined with `sandbox`');
  const mode = BUILT_IN[permissions];
  if (mode !== undefined) return mode;
  if (permissions.startsWith(':')) throw invalidRequest(`failed to load configuration: default_permissions refers to unknown built-in profile \`${permissions}\``);
  throw invalidRequest('failed to load configuration: default_permissions requires a `[permissions]` table');
}
