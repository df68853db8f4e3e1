// The configuration keys nobody reads, and the warning codex 0.171.0 gives about them
// (probed): `Codex is ignoring N unrecognized configuration setting(s). …`, one line per key,
// the `-c` overrides and a thread's `config` map (`session-flags`) before config.toml
// (`user (<path>)`), each layer's keys in sorted order, the first three named and the rest
// counted. An unknown table is named, not its keys.
// The keys are the reference's (`ConfigToml`, `RawMcpServerConfig`, `ModelProviderInfo` in
// codex-rs/core/config.schema.json, checked key by key against the 0.171.0 binary) and
// thread-host's own settings, which it reads and so does not ignore. Tables below these are
// not looked into.
import type { ConfigDocument } from './config-document.js';

const REFERENCE_TOP_LEVEL = [
  'agents', 'allow_login_shell', 'analytics', 'approval_policy', 'approvals_reviewer', 'apps', 'apps_mcp_product_sku', 'audio',
  'auto_review', 'background_terminal_max_timeout', 'chatgpt_base_url', 'check_for_update_on_startup', 'cli_auth_credentials_store',
  'compact_prompt', 'debug', 'default_permissions', 'desktop', 'developer_instructions', 'disable_paste_burst',
  'experimental_compact_prompt_file', 'experimental_realtime_start_instructions', 'experimental_realtime_ws_backend_prompt',
  'experimental_realtime_ws_base_url', 'experimental_realtime_ws_model', 'experimental_realtime_ws_startup_context',
  'experimental_thread_config_endpoint', 'experimental_thread_store', 'experimental_use_unified_exec_tool', 'features', 'feedback',
  'file_opener', 'forced_chatgpt_workspace_id', 'forced_login_method', 'ghost_snapshot', 'hide_agent_reasoning', 'history', 'hooks',
  'include_apps_instructions', 'include_collaboration_mode_instructions', 'include_environment_context',
  'include_permissions_instructions', 'instructions', 'log_dir', 'marketplaces', 'mcp_oauth_callback_port', 'mcp_oauth_callback_url',
  'mcp_oauth_credentials_store', 'mcp_servers', 'memories', 'model', 'model_auto_compact_token_limit',
  'model_auto_compact_token_limit_scope', 'model_catalog_json', 'model_context_window', 'model_instructions_file', 'model_provider',
  'model_providers', 'model_reasoning_effort', 'model_reasoning_summary', 'model_supports_reasoning_summaries', 'model_verbosity',
  'notice', 'notify', 'openai_base_url', 'oss_provider', 'otel', 'permissions', 'personality', 'plan_mode_reasoning_effort', 'plugins',
  'profile', 'profiles', 'project_doc_fallback_filenames', 'project_doc_max_bytes', 'project_root_markers', 'projects', 'realtime',
  'review_model', 'sandbox_mode', 'sandbox_workspace_write', 'service_tier', 'shell_environment_policy', 'show_raw_agent_reasoning',
  'skills', 'sqlite_home', 'suppress_unstable_features_warning', 'tool_output_token_limit', 'tool_suggest', 'tools', 'tui',
  'web_search', 'windows',
];

// thread-host's own settings (host-config.ts and its neighbours).
const HOST_TOP_LEVEL = [
  'codex_history_projection', 'fleet_advertise_url', 'fleet_lease_ms', 'fleet_renew_ms', 'fleet_secret_file', 'history_mode',
  'lockfile_stale_ms', 'lockfile_update_ms', 'max_in_flight_requests', 'max_line_bytes', 'max_loaded_threads', 'max_outbound_bytes',
  'postgres_url', 'thread_store', 'thread_unload_delay_secs', 'tool_call_grace_ms', 'writer_lock_backend', 'writer_lock_timeout_ms',
];

const TOP_LEVEL = new Set([...REFERENCE_TOP_LEVEL, ...HOST_TOP_LEVEL]);

// `RawMcpServerConfig`, and `experimental_environment`, which mcp-server-config.ts reads.
const MCP_SERVER = new Set([
  'command', 'args', 'env', 'env_vars', 'cwd', 'url', 'bearer_token', 'bearer_token_env_var', 'http_headers', 'env_http_headers',
  'startup_timeout_sec', 'startup_timeout_ms', 'tool_timeout_sec', 'enabled', 'required', 'enabled_tools', 'disabled_tools', 'scopes',
  'oauth_resource', 'oauth', 'supports_parallel_tool_calls', 'default_tools_approval_mode', 'tools', 'name', 'experimental_environment',
]);

// `ModelProviderInfo`, and `request_timeout_ms`, which host-config.ts reads.
const MODEL_PROVIDER = new Set([
  'name', 'base_url', 'env_key', 'env_key_instructions', 'experimental_bearer_token', 'wire_api', 'query_params', 'http_headers',
  'env_http_headers', 'request_max_retries', 'stream_max_retries', 'stream_idle_timeout_ms', 'requires_openai_auth',
  'supports_websockets', 'websocket_connect_timeout_ms', 'auth', 'request_timeout_ms',
]);

/** The dotted paths of `document`'s keys that no one reads, sorted. */
export function unrecognizedKeys(document: ConfigDocument): string[] {
  const found: string[] = [];
  for (const [key, value] of Object.entries(document)) {
    if (!TOP_LEVEL.has(key)) found.push(key);
    else if (key === 'mcp_servers') found.push(...unknownInEntries('mcp_servers', value, MCP_SERVER));
    else if (key === 'model_providers') found.push(...unknownInEntries('model_providers', value, MODEL_PROVIDER));
  }
  return found.sort();
}

function unknownInEntries(table: string, value: unknown, known: ReadonlySet<string>): string[] {
  const found: string[] = [];
  if (!isPlainTable(value)) return found;
  for (const [name, entry] of Object.entries(value)) {
    if (!isPlainTable(entry)) continue;
    for (const key of Object.keys(entry)) if (!known.has(key)) found.push(`${table}.${name}.${key}`);
  }
  return found;
}

function isPlainTable(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

/** One layer's unknown keys: `sessionFlags` for `-c` and a thread's `config`, or config.toml at `file`. */
export interface UnrecognizedInLayer {
  layer: { type: 'sessionFlags' } | { type: 'user'; file: string };
  keys: readonly string[];
}

// The reference names the first three keys and counts the rest ("… and 1 more ignored settings.").
const SHOWN_KEYS = 3;

/** The reference's text, or null when every key is known. */
export function unrecognizedSettingsWarning(layers: readonly UnrecognizedInLayer[]): string | null {
  const lines = layers.flatMap(({ layer, keys }) => {
    const where = layer.type === 'sessionFlags' ? 'session-flags' : `user (${layer.file})`;
    return keys.map((key) => `\n  ${where}: \`${key}\` is ignored.`);
  });
  if (lines.length === 0) return null;
  const count = lines.length === 1 ? '1 unrecognized configuration setting' : `${lines.length} unrecognized configuration settings`;
  const shown = lines.slice(0, SHOWN_KEYS).join('');
  const rest = lines.length - SHOWN_KEYS;
  return `Codex is ignoring ${count}. Check for typos or deprecated settings.${shown}${rest > 0 ? `\n  ... and ${rest} more ignored settings.` : ''}`;
}
