// The catalogs of things thread-host does not have: skills, hooks, plugins, apps (connectors),
// MCP servers, collaboration modes and experimental feature flags. A thread here is a
// conversation with a model provider; it runs no tools, so nothing in these catalogs could be
// used. Each answers the reference's empty shape, with its paging errors where it has them.
import type { Connection } from '../connections.js';
import type { HostContext } from '../host-context.js';
import type { experimentalFeatureListParams, hooksListParams, mcpServerStatusListParams, skillsListParams } from '../protocol/discovery-params.js';
import { pageByIndex } from '../protocol/index-cursor.js';
import { mcpServerStatuses } from '../tools/mcp-server-statuses.js';

type Params<D extends (value: unknown) => unknown> = ReturnType<D>;

/** One entry per asked cwd (the server's cwd when none is given), each with no skills. */
export function skillsList(ctx: HostContext, _connection: Connection, params: Params<typeof skillsListParams>): unknown {
  return { data: cwdsOf(ctx, params.cwds).map((cwd) => ({ cwd, skills: [], errors: [] })) };
}

export function hooksList(ctx: HostContext, _connection: Connection, params: Params<typeof hooksListParams>): unknown {
  return { data: cwdsOf(ctx, params.cwds).map((cwd) => ({ cwd, hooks: [], warnings: [], errors: [] })) };
}

export function pluginInstalled(): unknown {
  return { marketplaces: [], marketplaceLoadErrors: [] };
}

/** The reference's app/list ignores its cursor when there is nothing to list. */
export function appList(): unknown {
  return { data: [], nextCursor: null };
}

/** The MCP servers' statuses, from memory: the host's configured ones and the sessions its threads hold. */
export function mcpServerStatusList(ctx: HostContext, _connection: Connection, params: Params<typeof mcpServerStatusListParams>): unknown {
  return pageByIndex(mcpServerStatuses(ctx), params.cursor, null, 'MCP servers');
}

export function experimentalFeatureList(_ctx: HostContext, _connection: Connection, params: Params<typeof experimentalFeatureListParams>): unknown {
  return pageByIndex([], params.cursor, params.limit, 'feature flags');
}

/** thread-host sends a turn's input as written: no plan mode, no mode presets. */
export function collaborationModeList(): unknown {
  return { data: [] };
}

// Paths are echoed as given, relative ones included, as the reference does.
const cwdsOf = (ctx: HostContext, cwds: string[]): string[] => (cwds.length > 0 ? cwds : [ctx.cwd]);
