// `config/read` and `configRequirements/read`: the configuration this process runs with, read
// once at start, answered from memory. The effective config lists the keys thread-host reads,
// with their defaults filled in, then every other key the layers set (kept, though unused).
import type { Connection } from '../connections.js';
import { ConfigError } from '../config/config-document.js';
import { describeLayers, originsOf, tomlToJson, type ConfigLayer, type ConfigOrigins } from '../config/config-layers.js';
import { resolveConnectionLimits, resolveHostConfig, resolveMaxLoadedThreads } from '../config/host-config.js';
import type { HostContext } from '../host-context.js';
import { memoKey } from '../host-memo.js';
import type { configReadParams } from '../protocol/discovery-params.js';

interface DescribedConfig {
  config: Record<string, unknown>;
  origins: ConfigOrigins;
  layers: ConfigLayer[];
}

// The configuration never changes while the host runs: described once, on first use.
const DESCRIBED = memoKey<DescribedConfig>('described config');

export function configRead(ctx: HostContext, _connection: Connection, params: ReturnType<typeof configReadParams>): unknown {
  const answer = ctx.memo.once(DESCRIBED, () => {
    const layers = describeLayers(ctx.configLayers);
    return { config: effectiveConfig(ctx.configDocument), origins: originsOf(layers), layers };
  });
  // `cwd` would select project layers (.codex/config.toml), which thread-host does not read.
  return params.includeLayers ? answer : { config: answer.config, origins: answer.origins };
}

/** Nothing is required of this host's configuration: no requirements.toml, no MDM. */
export function configRequirementsRead(): unknown {
  return { supportsIndependentSpeedModes: true, requirements: null };
}

function effectiveConfig(document: Record<string, unknown>): Record<string, unknown> {
  const rest = tomlToJson(document) as Record<string, unknown>;
  let resolved: Record<string, unknown>;
  try {
    const config = resolveHostConfig(document);
    const limits = resolveConnectionLimits(document);
    resolved = {
      model: config.model,
      model_provider: config.provider.id,
      approval_policy: config.approvalPolicy,
      approvals_reviewer: config.approvalsReviewer,
      sandbox_mode: config.sandboxMode,
      history_mode: config.historyMode,
      thread_unload_delay_secs: config.threadUnloadDelaySecs,
      writer_lock_timeout_ms: config.writerLockTimeoutMs,
      max_loaded_threads: resolveMaxLoadedThreads(document),
      max_line_bytes: limits.maxLineBytes,
      max_in_flight_requests: limits.maxInFlightRequests,
      max_outbound_bytes: limits.maxOutboundBytes,
    };
  } catch (error) {
    // An invalid configuration is reported by thread/start; here it reads as written.
    if (!(error instanceof ConfigError)) throw error;
    return rest;
  }
  return { ...resolved, ...withoutKeys(rest, Object.keys(resolved)) };
}

function withoutKeys(table: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(table)) if (!keys.includes(key)) out[key] = value;
  return out;
}
