// A configured server made concrete: the environment and headers read from the host's
// environment, and the identity that decides which threads share one client session. Two
// threads whose launches hash the same share one process; a different env value, argument or
// token is a different session.
import { createHash } from 'node:crypto';
import type { McpServerConfig } from './mcp-server-config.js';
import { DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TOOL_TIMEOUT_MS } from './mcp-server-config.js';

/** SHA-256 (hex) of a launch's canonical form. */
export type LaunchIdentity = string & { readonly __brand: 'LaunchIdentity' };

/** What is started: a process, or an HTTP endpoint with its headers. */
export type McpEndpoint =
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd: string | null }
  | { kind: 'streamableHttp'; url: string; headers: Record<string, string> };

/** A resolved launch: the endpoint, its identity, and the server's settings the hub applies. */
export interface McpLaunch {
  name: string;
  identity: LaunchIdentity;
  endpoint: McpEndpoint;
  startupTimeoutMs: number;
  toolTimeoutMs: number;
  enabledTools: string[] | null;
  disabledTools: string[] | null;
  /** True when a bearer token was configured: `authStatus` is `bearerToken`. */
  bearerToken: boolean;
}

/** A launch that cannot be made (a missing token variable): the text is the reference's. */
export class McpLaunchError extends Error {}

// codex-rs/rmcp-client/src/utils.rs `DEFAULT_ENV_VARS` (unix): what a stdio server inherits
// besides `env_vars` and `env`.
export const DEFAULT_ENV_VARS = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'USER', '__CF_USER_TEXT_ENCODING', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'TZ'];

/** Resolves `server` against `environment` (the host's, by default); throws `McpLaunchError`. */
export function resolveLaunch(server: McpServerConfig, environment: NodeJS.ProcessEnv = process.env): McpLaunch {
  const transport = server.transport;
  let endpoint: McpEndpoint;
  let bearerToken = false;
  if (transport.kind === 'stdio') {
    const env: Record<string, string> = {};
    // utils.rs `create_env_for_mcp_server`: defaults, then `env_vars`, then `env` on top.
    for (const name of [...DEFAULT_ENV_VARS, ...transport.envVars.map((entry) => entry.name)]) {
      const value = environment[name];
      if (value !== undefined) env[name] = value;
    }
    const remote = transport.envVars.find((entry) => entry.source === 'remote');
    if (remote !== undefined) {
      // utils.rs `local_stdio_env_var_names`.
      throw new McpLaunchError(`env_vars entry \`${remote.name}\` uses source \`remote\`, which requires remote MCP stdio`);
    }
    Object.assign(env, transport.env ?? {});
    endpoint = { kind: 'stdio', command: transport.command, args: transport.args, env, cwd: transport.cwd };
  } else {
    const headers: Record<string, string> = { ...(transport.httpHeaders ?? {}) };
    // utils.rs `build_default_headers`: a variable unset or blank adds no header.
    for (const [header, variable] of Object.entries(transport.envHttpHeaders ?? {})) {
      const value = environment[variable];
      if (value !== undefined && value.trim() !== '') headers[header] = value;
    }
    if (transport.bearerTokenEnvVar !== null) {
      headers.Authorization = `Bearer ${bearerTokenFrom(environment, transport.bearerTokenEnvVar, server.name)}`;
      bearerToken = true;
    }
    endpoint = { kind: 'streamableHttp', url: transport.url, headers };
  }
  return {
    name: server.name,
    identity: launchIdentity(endpoint),
    endpoint,
    startupTimeoutMs: server.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
    toolTimeoutMs: server.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    enabledTools: server.enabledTools,
    disabledTools: server.disabledTools,
    bearerToken,
  };
}

// codex-rs/codex-mcp/src/rmcp_client.rs (resolving `bearer_token_env_var`): the two texts.
function bearerTokenFrom(environment: NodeJS.ProcessEnv, variable: string, server: string): string {
  const value = environment[variable];
  if (value === undefined) throw new McpLaunchError(`Environment variable ${variable} for MCP server '${server}' is not set`);
  if (value.trim() === '') throw new McpLaunchError(`Environment variable ${variable} for MCP server '${server}' is empty`);
  return value;
}

/** The identity of an endpoint: keys sorted, so the order a table was written in does not matter. */
export function launchIdentity(endpoint: McpEndpoint): LaunchIdentity {
  const canonical =
    endpoint.kind === 'stdio'
      ? ['stdio', endpoint.command, endpoint.args, sortedEntries(endpoint.env), endpoint.cwd]
      : ['streamableHttp', endpoint.url, sortedEntries(endpoint.headers)];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex') as LaunchIdentity;
}

function sortedEntries(map: Record<string, string>): [string, string][] {
  return Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
