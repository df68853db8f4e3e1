// A session as `mcpServerStatus/list` shows it: the v2 schema's `McpServerStatus`, built from
// what the session holds in memory (the server is never asked while a client waits).
import type { Implementation, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpLaunch } from './mcp-launch.js';
import type { McpSession, SessionState } from './mcp-session.js';
import { filterTools } from './tool-filter.js';

/** The schema's `McpAuthStatus`. No OAuth here: a token from the environment, or nothing to log in to. */
export type McpAuthStatus = 'unknown' | 'unsupported' | 'notLoggedIn' | 'bearerToken' | 'oAuth';

/** The schema's `McpServerConnectionStatus` (the values the hub can be in). */
export type McpRuntimeStatus = 'notStarted' | 'starting' | 'connected' | 'failed' | 'cancelled';

/** The schema's `McpServerStatus`: the required fields, and `runtimeStatus`. */
export interface McpServerStatus {
  name: string;
  tools: Record<string, Tool>;
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  authStatus: McpAuthStatus;
  runtimeStatus: McpRuntimeStatus;
  /** The server's `serverInfo` with every field of the reference's `Implementation` (null when unset), while connected. */
  serverInfo: Record<string, unknown> | null;
  /** The capabilities the server declared, while connected. */
  serverCapabilities: Record<string, unknown> | null;
  /** Why the server's start failed, as the reference's `toolsError` says it; null otherwise. */
  toolsError: string | null;
}

/** `session` seen through one lease's `launch` (its name and tool lists). */
export function serverStatus(session: McpSession, launch: McpLaunch): McpServerStatus {
  const inventory = session.inventory;
  const connection = session.state.kind === 'ready' ? session.state.connection : null;
  const tools: Record<string, Tool> = {};
  for (const tool of filterTools(launch, inventory?.tools ?? [])) tools[tool.name] = tool;
  return {
    name: launch.name,
    tools,
    resources: inventory?.resources ?? [],
    resourceTemplates: inventory?.resourceTemplates ?? [],
    authStatus: launch.bearerToken ? 'bearerToken' : 'unsupported',
    runtimeStatus: runtimeStatus(session.state),
    serverInfo: connection === null ? null : implementation(connection.serverInfo),
    serverCapabilities: (connection?.serverCapabilities as Record<string, unknown> | null | undefined) ?? null,
    toolsError: session.state.kind === 'failed' ? toolsError(session.launch.name, session.state.error) : null,
  };
}

// rmcp's `Implementation` as the reference serializes it: every field, null when the server left it out.
function implementation(info: Implementation | null): Record<string, unknown> | null {
  if (info === null) return null;
  const { name, title, version, description, icons, websiteUrl } = info as Implementation & { description?: string };
  return { name, title: title ?? null, version, description: description ?? null, icons: icons ?? null, websiteUrl: websiteUrl ?? null };
}

// The reference's `toolsError` is the cause alone (`MCP startup failed: …`), without the
// `MCP client for `<name>` failed to start: ` of the startup status.
function toolsError(name: string, error: string): string {
  const prefix = `MCP client for \`${name}\` failed to start: `;
  return error.startsWith(prefix) ? error.slice(prefix.length) : error;
}

function runtimeStatus(state: SessionState): McpRuntimeStatus {
  switch (state.kind) {
    case 'idle':
      return state.lastError === null ? 'notStarted' : 'failed';
    case 'starting':
      return 'starting';
    case 'ready':
      return 'connected';
    case 'backoff':
    case 'failed':
      return 'failed';
    case 'stopped':
      return 'cancelled';
  }
}
