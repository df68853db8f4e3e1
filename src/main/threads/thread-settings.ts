// Resolves the settings a new or resumed thread runs with: configuration (config.toml,
// `-c`, the request's `config` map), then the request's explicit fields.
import { join, resolve } from 'node:path';
import type { ThreadSettings } from '../../common/actor-messages.js';
import type { ResolvedProvider } from '../../common/model-provider.js';
import { ConfigError, threadDocument } from '../config/config-document.js';
import { resolveHostConfig, unloadDelayDependsOnClock, type HostConfig } from '../config/host-config.js';
import { invalidRequest } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import { resolveMcpServers, type McpServerConfig } from '../tools/mcp/mcp-server-config.js';
import { memoKey } from '../host-memo.js';
import { hostToolsOf } from '../tools/shell/shell-tool-specs.js';
import { ignoredSettingsWarning } from './ignored-settings-notices.js';

/** The request fields that override configuration for a thread. */
export interface SessionOverrides {
  model: string | null;
  modelProvider: string | null;
  cwd: string | null;
  approvalPolicy: unknown;
  approvalsReviewer: string | null;
  sandbox: string | null;
  config: Record<string, unknown> | null;
  baseInstructions: string | null;
  developerInstructions: string | null;
}

export interface ResolvedSession {
  /** Shared by the requests that override nothing (frozen). */
  config: Readonly<HostConfig>;
  settings: ThreadSettings;
  provider: ResolvedProvider;
  /** The thread's MCP servers: config.toml's, merged under the `-c` ones with the request's `config` assigned over those (config-document.ts). */
  mcpServers: readonly McpServerConfig[];
  /** The request's `config` map, laid again over the host's document when config/mcpServer/reload reads it anew. */
  requestConfig: Record<string, unknown> | null;
  /** The warning about the keys of this configuration nobody reads; null when there are none. */
  ignoredSettings: string | null;
}

const NO_MODELS = 'No models are available. Set `model` explicitly or check your model catalog configuration.';

/** Throws -32600 "failed to load configuration: …" for a bad value, as the reference does. */
export function resolveSession(ctx: HostContext, overrides: SessionOverrides): ResolvedSession {
  let document = ctx.configDocument;
  if (overrides.config) document = threadDocument(ctx.configLayers.user, ctx.configLayers.flags, overrides.config);
  if (overrides.modelProvider) document = { ...document, model_provider: overrides.modelProvider };
  let config: Readonly<HostConfig>;
  let mcpServers: readonly McpServerConfig[];
  try {
    config = document === ctx.configDocument ? hostConfigOf(ctx) : resolveHostConfig(document);
    mcpServers = document === ctx.configDocument ? ctx.memo.once(MCP_SERVERS, () => Object.freeze(resolveMcpServers(document))) : resolveMcpServers(document);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // Name the file when the problem is in config.toml itself rather than in this request,
    // whose layered document the reference words as its TOML deserializer does.
    const fromFile = overrides.config === null && overrides.modelProvider === null;
    throw invalidRequest(`failed to load configuration: ${fromFile ? `${join(ctx.home, 'config.toml')}: ${error.message}` : error.keyed}`);
  }
  // An empty `model` (a request's `"model": null` reads as one) names none: the reference then
  // looks for one in the provider's model catalog, which a configured provider does not have.
  if (overrides.model === null && config.model === '') throw invalidRequest(NO_MODELS);
  const provider = config.provider;
  const settings: ThreadSettings = {
    model: overrides.model ?? config.model,
    modelProvider: provider.id,
    cwd: overrides.cwd === null ? ctx.cwd : resolve(ctx.cwd, overrides.cwd),
    approvalPolicy: overrides.approvalPolicy ?? config.approvalPolicy,
    approvalsReviewer: overrides.approvalsReviewer ?? config.approvalsReviewer,
    sandboxMode: overrides.sandbox ?? config.sandboxMode,
    baseInstructions: overrides.baseInstructions,
    developerInstructions: overrides.developerInstructions,
    effort: config.reasoningEffort,
    // The host's own tools, by this thread's configuration; the client's join them (thread-tools.ts).
    tools: hostToolsOf(document),
    dynamicTools: null,
    hostTools: mcpServers.some((server) => server.enabled),
  };
  const apiKey = provider.kind === 'responses' && provider.envKey ? (ctx.env[provider.envKey] ?? null) : null;
  return { config, settings, provider: { ...provider, apiKey }, mcpServers, requestConfig: overrides.config, ignoredSettings: ignoredSettingsWarning(ctx, overrides.config) };
}

// The host's own document (config.toml and `-c`) does not change while it runs, so a request
// that overrides nothing resolves it to the same configuration, or the same error, every time:
// resolved once, it is a map lookup instead of every key checked again (a burst of 32
// thread/starts or cold resumes resolved it 32 times, one after another, while other requests
// waited). The one exception is an unload delay within the system's uptime of i64::MAX, which
// the reference refuses once uptime grows past it: such a document is resolved every time. The
// configuration is shared, hence frozen.
const RESOLVED = memoKey<Readonly<HostConfig> | ConfigError>('resolved host config');
// Forgotten when config/mcpServer/reload gives the host a new document (tools/mcp-reload.ts).
export const MCP_SERVERS = memoKey<readonly McpServerConfig[]>('the host document\'s MCP servers');

function hostConfigOf(ctx: HostContext): Readonly<HostConfig> {
  const document = ctx.configDocument;
  if (unloadDelayDependsOnClock(document)) return resolveHostConfig(document);
  const resolved = ctx.memo.once(RESOLVED, () => {
    try {
      const config = resolveHostConfig(document);
      return Object.freeze({ ...config, provider: Object.freeze(config.provider) });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return error;
    }
  });
  if (resolved instanceof ConfigError) throw resolved;
  return resolved;
}
