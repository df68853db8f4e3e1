// A session as `mcpServerStatus/list` shows it: the v2 schema's `McpServerStatus`, built from
// what the session holds in memory (the server is never asked while a client waits).
import type { Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
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
}

/** `session` seen through one lease's `launch` (its name and tool lists). */
export function serverStatus(session: McpSession, launch: McpLaunch): McpServerStatus {
  const inventory = session.inventory;
  const tools: Record<string, Tool> = {};
  for (const tool of filterTools(launch, inventory?.tools ?? [])) tools[tool.name] = tool;
  return {
    name: launch.name,
    tools,
    resources: inventory?.resources ?? [],
    resourceTemplates: inventory?.resourceTemplates ?? [],
    authStatus: launch.bearerToken ? 'bearerToken' : 'unsupported',
    runtimeStatus: runtimeStatus(session.state),
  };
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
      return 'failed';
    case 'stopped':
      return 'cancelled';
  }
}
