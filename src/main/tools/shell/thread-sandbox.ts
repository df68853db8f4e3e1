// The sandbox a thread's commands and patches run under: its `sandbox_mode` (thread/start's
// `sandbox`, else config.toml) with config.toml's `[sandbox_workspace_write]`.
import { ConfigError } from '../../config/config-document.js';
import type { HostContext } from '../../host-context.js';
import { sandboxPolicyFromConfig, type SandboxPolicy } from '../exec/sandbox-policy.js';

/** The policy; null when the mode is none the host knows (nothing runs then). */
export function threadSandboxPolicy(ctx: HostContext, sandboxMode: string): SandboxPolicy | null {
  try {
    return sandboxPolicyFromConfig({ ...ctx.configDocument, sandbox_mode: sandboxMode }, ctx.home);
  } catch (error) {
    if (error instanceof ConfigError) return null;
    throw error;
  }
}
