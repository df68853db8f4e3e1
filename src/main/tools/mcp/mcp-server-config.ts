// The `[mcp_servers.<name>]` tables of a layered config document (config.toml, then `-c`),
// parsed as codex 0.171.0 parses them: codex-rs/config/src/mcp_types.rs (`RawMcpServerConfig`,
// `TryFrom<RawMcpServerConfig> for McpServerConfig`). Keys, defaults and the transport rules
// are the reference's; a bad entry names the server and the key.
import { ConfigError, type ConfigDocument } from '../../config/config-document.js';

/** `AppToolApproval` in mcp_types.rs, serde snake_case; `auto` is its default. */
export type McpToolApproval = 'auto' | 'prompt' | 'approve';

/** An `env_vars` entry: a bare name, or `{name, source}` with source `local` or `remote`. */
export interface McpEnvVar {
  name: string;
  source: 'local' | 'remote' | null;
}

/** How the server is reached: a `command` makes it stdio, else a `url` streamable HTTP. */
export type McpTransportConfig =
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string> | null; envVars: McpEnvVar[]; cwd: string | null }
  | {
      kind: 'streamableHttp';
      url: string;
      bearerTokenEnvVar: string | null;
      httpHeaders: Record<string, string> | null;
      envHttpHeaders: Record<string, string> | null;
    };

/** One configured server, with the reference's keys (timeouts in milliseconds, null when unset). */
export interface McpServerConfig {
  name: string;
  transport: McpTransportConfig;
  enabled: boolean;
  required: boolean;
  supportsParallelToolCalls: boolean;
  startupTimeoutMs: number | null;
  toolTimeoutMs: number | null;
  enabledTools: string[] | null;
  disabledTools: string[] | null;
  defaultToolsApprovalMode: McpToolApproval | null;
  tools: Record<string, { approvalMode: McpToolApproval | null }>;
}

// codex-rs/codex-mcp/src/rmcp_client.rs: `DEFAULT_STARTUP_TIMEOUT` (30 s) covers initialize and
// the first tools/list; `DEFAULT_TOOL_TIMEOUT` (300 s) each tools/call. (Older codex, before
// the codex-mcp crate, had 10 s and 60 s, then 120 s: these are 0.171.0's.)
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
export const DEFAULT_TOOL_TIMEOUT_MS = 300_000;

// A key the reference does not know is ignored, as codex 0.171.0 ignores it (probed: it only
// warns when a thread starts, ``Codex is ignoring 1 unrecognized configuration setting. …``).
// Some keys are accepted only for the reference's own features (OAuth login, remote
// environments) and are checked for type but not kept.
const APPROVALS: readonly McpToolApproval[] = ['auto', 'prompt', 'approve'];

/** Every server of `document.mcp_servers`, in the document's order; throws `ConfigError`. */
export function resolveMcpServers(document: ConfigDocument): McpServerConfig[] {
  const servers = document.mcp_servers;
  if (servers === undefined) return [];
  if (!isTable(servers)) throw ConfigError.at('mcp_servers', `invalid type: ${typeName(servers)}, expected a map`);
  return Object.entries(servers).map(([name, table]) => resolveMcpServer(name, table));
}

/** One `[mcp_servers.<name>]` table. */
export function resolveMcpServer(name: string, table: unknown): McpServerConfig {
  // serde reads a struct from a sequence too, field by field: a first item that is no string
  // (an array of tables, `[[mcp_servers.<name>]]`) fails as the first field, `command`.
  if (Array.isArray(table) && table.length > 0 && typeof table[0] !== 'string') {
    throw ConfigError.at(`mcp_servers.${name}`, `invalid type: ${typeName(table[0])}, expected a string`);
  }
  const at = new KeyReader(`mcp_servers.${name}`, table, 'struct RawMcpServerConfig');
  // Checked for type only (see above).
  at.string('experimental_environment');
  at.stringList('scopes');
  at.string('name');
  const oauth = at.value('oauth');
  if (oauth !== undefined && !isTable(oauth)) throw at.typeError('oauth', oauth, 'a table');
  const oauthResource = at.string('oauth_resource');

  // `startup_timeout_sec` wins over `startup_timeout_ms` when both are set (mcp_types.rs).
  const startupSec = at.seconds('startup_timeout_sec');
  const startupMs = at.unsigned('startup_timeout_ms');
  return {
    name,
    transport: transport(at, oauth, oauthResource),
    enabled: at.boolean('enabled') ?? true,
    required: at.boolean('required') ?? false,
    supportsParallelToolCalls: at.boolean('supports_parallel_tool_calls') ?? false,
    startupTimeoutMs: startupSec ?? startupMs,
    toolTimeoutMs: at.seconds('tool_timeout_sec'),
    enabledTools: at.stringList('enabled_tools'),
    disabledTools: at.stringList('disabled_tools'),
    defaultToolsApprovalMode: at.approval('default_tools_approval_mode'),
    tools: toolTables(at),
  };
}

function transport(at: KeyReader, oauth: unknown, oauthResource: string | null): McpTransportConfig {
  const command = at.string('command');
  const url = at.string('url');
  const args = at.stringList('args');
  const env = at.stringMap('env');
  const envVars = envVarList(at);
  const cwd = at.string('cwd');
  const bearerToken = at.string('bearer_token');
  const bearerTokenEnvVar = at.string('bearer_token_env_var');
  const httpHeaders = at.stringMap('http_headers');
  const envHttpHeaders = at.stringMap('env_http_headers');
  // The texts are mcp_types.rs's `throw_if_set`: "{field} is not supported for {transport}".
  const refuse = (kind: string, field: string, value: unknown): void => {
    if (value !== null && value !== undefined) throw ConfigError.at(at.path, `${field} is not supported for ${kind}`);
  };
  if (command !== null) {
    refuse('stdio', 'url', url);
    refuse('stdio', 'bearer_token_env_var', bearerTokenEnvVar);
    refuse('stdio', 'bearer_token', bearerToken);
    refuse('stdio', 'http_headers', httpHeaders);
    refuse('stdio', 'env_http_headers', envHttpHeaders);
    refuse('stdio', 'oauth', oauth);
    refuse('stdio', 'oauth_resource', oauthResource);
    return { kind: 'stdio', command, args: args ?? [], env, envVars: envVars ?? [], cwd };
  }
  if (url !== null) {
    refuse('streamable_http', 'args', args);
    refuse('streamable_http', 'env', env);
    refuse('streamable_http', 'env_vars', envVars);
    refuse('streamable_http', 'cwd', cwd);
    refuse('streamable_http', 'bearer_token', bearerToken);
    return { kind: 'streamableHttp', url, bearerTokenEnvVar, httpHeaders, envHttpHeaders };
  }
  throw ConfigError.at(at.path, `invalid transport`);
}

function envVarList(at: KeyReader): McpEnvVar[] | null {
  const value = at.value('env_vars');
  if (value === undefined) return null;
  if (!Array.isArray(value)) throw at.typeError('env_vars', value, 'a sequence');
  return value.map((entry: unknown, index): McpEnvVar => {
    if (typeof entry === 'string') return { name: entry, source: null };
    const item = new KeyReader(`${at.path}.env_vars[${index}]`, entry);
    const name = item.string('name');
    if (name === null) throw ConfigError.at(item.path, `missing field \`name\``);
    const source = item.string('source');
    // mcp_types.rs `McpServerEnvVar::validate_source`.
    if (source !== null && source !== 'local' && source !== 'remote') {
      throw ConfigError.at(item.path, `unsupported env_vars source \`${source}\`; expected \`local\` or \`remote\``);
    }
    return { name, source };
  });
}

function toolTables(at: KeyReader): Record<string, { approvalMode: McpToolApproval | null }> {
  const value = at.value('tools');
  if (value === undefined) return {};
  if (!isTable(value)) throw at.typeError('tools', value, 'a table');
  const tools: Record<string, { approvalMode: McpToolApproval | null }> = {};
  for (const [tool, table] of Object.entries(value)) {
    const item = new KeyReader(`${at.path}.tools.${tool}`, table);
    tools[tool] = { approvalMode: item.approval('approval_mode') };
  }
  return tools;
}

/** Typed reads of one table's keys; every error names `path.key`. */
class KeyReader {
  readonly #table: Record<string, unknown>;

  constructor(
    readonly path: string,
    table: unknown,
    expected = 'a table',
  ) {
    if (!isTable(table)) throw ConfigError.at(path, `invalid type: ${typeName(table)}, expected ${expected}`);
    this.#table = table;
  }

  value(key: string): unknown {
    return this.#table[key];
  }

  typeError(key: string, value: unknown, expected: string): ConfigError {
    return ConfigError.at(`${this.path}.${key}`, `invalid type: ${typeName(value)}, expected ${expected}`);
  }

  string(key: string): string | null {
    const value = this.#table[key];
    if (value === undefined) return null;
    if (typeof value !== 'string') throw this.typeError(key, value, 'a string');
    return value;
  }

  boolean(key: string): boolean | null {
    const value = this.#table[key];
    if (value === undefined) return null;
    if (typeof value !== 'boolean') throw this.typeError(key, value, 'a boolean');
    return value;
  }

  /** serde's `Vec<String>`: not a sequence is the key's problem, an item that is no string the item's (`key[i]`). */
  stringList(key: string): string[] | null {
    const value = this.#table[key];
    if (value === undefined) return null;
    if (!Array.isArray(value)) throw this.typeError(key, value, 'a sequence');
    // The position names the item (the reload places it there); the reference's thread-config
    // text names the list (ConfigError's `keyed` drops the index).
    const bad = value.findIndex((item) => typeof item !== 'string');
    if (bad !== -1) throw this.typeError(`${key}[${bad}]`, value[bad], 'a string');
    return [...(value as string[])];
  }

  /** serde's `HashMap<String, String>`: a value that is no string is that entry's problem (`key.name`). */
  stringMap(key: string): Record<string, string> | null {
    const value = this.#table[key];
    if (value === undefined) return null;
    if (!isTable(value)) throw this.typeError(key, value, 'a map');
    const bad = Object.entries(value).find(([, item]) => typeof item !== 'string');
    if (bad !== undefined) throw this.typeError(`${key}.${bad[0]}`, bad[1], 'a string');
    return { ...(value as Record<string, string>) };
  }

  /** `f64` seconds as milliseconds; a negative or non-finite value is refused as `Duration::try_from_secs_f64` refuses it. */
  seconds(key: string): number | null {
    const value = this.#table[key];
    if (value === undefined) return null;
    const n = typeof value === 'bigint' ? Number(value) : value;
    if (typeof n !== 'number') throw this.typeError(key, value, 'f64');
    if (!Number.isFinite(n) || n < 0) {
      throw ConfigError.at(`${this.path}.${key}`, `cannot convert float seconds to Duration: value is ${n < 0 ? 'negative' : 'either too big or NaN'}`);
    }
    return Math.round(n * 1000);
  }

  unsigned(key: string): number | null {
    const value = this.#table[key];
    if (value === undefined) return null;
    const n = typeof value === 'bigint' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isInteger(n)) throw this.typeError(key, value, 'u64');
    if (n < 0 || n > Number.MAX_SAFE_INTEGER) throw ConfigError.at(`${this.path}.${key}`, `invalid value: integer \`${String(value)}\`, expected u64`);
    return n;
  }

  approval(key: string): McpToolApproval | null {
    const value = this.#table[key];
    if (value === undefined) return null;
    if (typeof value === 'string' && (APPROVALS as readonly string[]).includes(value)) return value as McpToolApproval;
    const shown = typeof value === 'string' ? `\`${value}\`` : 'a non-string value';
    throw ConfigError.at(`${this.path}.${key}`, `unknown variant ${shown}, expected one of \`auto\`, \`prompt\`, \`approve\``);
  }
}

function isTable(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  if (typeof value === 'bigint') return `integer \`${value}\``;
  if (Array.isArray(value)) return 'sequence';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'map';
  if (typeof value === 'number') return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``;
  return typeof value;
}
