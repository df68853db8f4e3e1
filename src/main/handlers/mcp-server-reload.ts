// `config/mcpServer/reload`: the MCP servers of config.toml, read anew, for every loaded thread
// (tools/mcp-reload.ts); answered `{}` once they are in place.
import type { Connection } from '../connections.js';
import type { HostContext } from '../host-context.js';
import { reloadMcpServers } from '../tools/mcp-reload.js';

export async function mcpServerReload(ctx: HostContext, _connection: Connection, _params: null): Promise<unknown> {
  await reloadMcpServers(ctx);
  return {};
}
