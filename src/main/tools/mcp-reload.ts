// config/mcpServer/reload: config.toml read anew (the request's own wait, under a deadline; no
// other request waits on it), the command line's `-c` merged over it again, and each loaded
// thread's servers resolved again with its request's `config` map over that, as the reference
// does. The host's document takes the new `mcp_servers` (threads started later get them); each
// thread's kept servers keep their sessions, the changed and removed ones give theirs back, and
// a session no loaded thread is configured with any more stops at once. After the answer every
// thread with servers starts the ones not running now, as the reference's threads do (a
// running turn gets the new tool set for its next request), and a kept server whose start had
// failed is started again.
import { join } from 'node:path';
import { withDeadline } from '../../common/deadline.js';
import { internalError } from '../../common/errors.js';
import { fsPromises } from '../lazy-builtin.js';
import { ConfigError, mergedOver, parseToml, threadDocument, type ConfigDocument } from '../config/config-document.js';
import type { HostContext } from '../host-context.js';
import { MCP_SERVERS } from '../threads/thread-settings.js';
import { resolveMcpServers, type McpServerConfig } from './mcp/mcp-server-config.js';
import { serverProblemPosition, tomlSyntaxPosition } from './mcp-config-error-position.js';
import { answerHostTools } from './tool-call-router.js';
import type { McpReconfiguration } from './thread-mcp.js';

// A config.toml on a stuck mount must not hold the request for ever.
export const CONFIG_READ_DEADLINE_MS = 10_000;

export async function reloadMcpServers(ctx: HostContext): Promise<void> {
  const path = join(ctx.home, 'config.toml');
  const text = await readConfigText(ctx, path);
  let document: ConfigDocument = {};
  try {
    if (text !== null) document = parseToml(text);
  } catch (error) {
    throw refreshFailed(`${path}:${tomlSyntaxPosition(text!, error)}`);
  }
  // Only the servers are taken anew: config.toml's other keys stay as read at start.
  const { mcp_servers: _oldUser, ...userRest } = ctx.configLayers.user;
  const user: ConfigDocument = document.mcp_servers === undefined ? userRest : { ...userRest, mcp_servers: document.mcp_servers };
  const { flags } = ctx.configLayers;
  const layered = flags === null ? user : mergedOver(user, flags);
  const { mcp_servers: _old, ...rest } = ctx.configDocument;
  const hostDocument: ConfigDocument = layered.mcp_servers === undefined ? rest : { ...rest, mcp_servers: layered.mcp_servers };
  const resolved: Array<[string, McpServerConfig[]]> = [];
  const attached = ctx.mcp.attached();
  try {
    // With no thread loaded the reference resolves no server, so a bad table is not refused
    // here (a thread started on it is).
    const hostServers = attached.length === 0 ? [] : resolveMcpServers(hostDocument);
    for (const [threadId, requestConfig] of attached) {
      resolved.push([threadId, requestConfig === null ? hostServers : resolveMcpServers(threadDocument(user, flags, requestConfig))]);
    }
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw refreshFailed(`${path}:${serverProblemPosition(text, error.message)}`);
  }
  ctx.configDocument = hostDocument;
  ctx.configLayers = { ...ctx.configLayers, user };
  ctx.memo.forget(MCP_SERVERS);
  const changes = resolved.map(([threadId, servers]) => [threadId, ctx.mcp.reconfigured(threadId, servers)] as const);
  ctx.mcp.stopUnwanted();
  // After the answer, as the reference's announcements follow it.
  setImmediate(() => {
    for (const [threadId, change] of changes) startAgain(ctx, threadId, change);
  });
}

function startAgain(ctx: HostContext, threadId: string, change: McpReconfiguration): void {
  for (const event of change.ready) ctx.mcp.announce(event);
  ctx.mcp.retryFailed(change.retry);
  if (!change.relist) return;
  const thread = ctx.directory.get(threadId);
  if (thread === undefined) return;
  const turnId = thread.runningTurnId;
  if (turnId !== null) answerHostTools(ctx, thread, turnId);
  else void ctx.mcp.toolSpecs(threadId, true);
}

async function readConfigText(ctx: HostContext, path: string): Promise<string | null> {
  const read = fsPromises().readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw refreshFailed(`cannot read ${path}: ${error.message}`);
  });
  return withDeadline(read, CONFIG_READ_DEADLINE_MS, ctx.clock, () => {
    throw refreshFailed(`cannot read ${path}: no answer within ${CONFIG_READ_DEADLINE_MS} ms`);
  });
}

const refreshFailed = (detail: string) => internalError(`failed to refresh MCP servers: ${detail}`);
