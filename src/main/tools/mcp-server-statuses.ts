// `mcpServerStatus/list`, answered from memory as the reference shapes it: every server the
// host's configuration names (config.toml and `-c`), sorted by name, disabled ones included,
// each with what the shared session for it knows (its tools, resources, state) when one runs.
// Unlike the reference, nothing is started to answer: a server no thread has used yet shows
// no tools and a null `runtimeStatus`.
import type { HostContext } from '../host-context.js';
import { resolveMcpServers, type McpServerConfig } from './mcp/mcp-server-config.js';
import { ConfigError } from '../config/config-document.js';

export function mcpServerStatuses(ctx: HostContext): unknown[] {
  let configured: McpServerConfig[];
  try {
    configured = resolveMcpServers(ctx.configDocument);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    configured = [];
  }
  const sessions = new Map(ctx.mcp.status().map((status) => [status.name, status]));
  return [...configured]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((server) => {
      const session = server.enabled ? sessions.get(server.name) : undefined;
      return {
        name: server.name,
        environmentId: null,
        runtimeStatus: null,
        pluginId: null,
        httpOrigin: server.transport.kind === 'streamableHttp' ? originOf(server.transport.url) : null,
        serverInfo: session?.serverInfo ?? null,
        serverCapabilities: session?.serverCapabilities ?? null,
        toolListMeta: null,
        tools: session?.tools ?? {},
        toolsError: session?.toolsError ?? null,
        resources: session?.resources ?? [],
        resourceTemplates: session?.resourceTemplates ?? [],
        authStatus: session?.authStatus ?? (server.transport.kind === 'streamableHttp' && server.transport.bearerTokenEnvVar !== null ? 'bearerToken' : 'unsupported'),
      };
    });
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
