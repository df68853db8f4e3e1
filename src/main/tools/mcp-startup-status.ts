// `mcpServer/startupStatus/updated`: a server's session starting, ready or failed, told to the
// clients of every thread that holds a lease on it, as the reference tells a thread's clients.
import type { HostContext } from '../host-context.js';
import type { McpStartupEvent } from './mcp/mcp-hub.js';

export function announceMcpStartup(ctx: HostContext, event: McpStartupEvent): void {
  if (event.status === 'cancelled') return;
  for (const threadId of event.threadIds) {
    const thread = ctx.directory.get(threadId);
    if (thread === undefined) continue;
    ctx.outgoing.notifyMany(thread.subscribers, 'mcpServer/startupStatus/updated', {
      threadId,
      name: event.name,
      environmentId: null,
      status: event.status,
      error: event.error,
      failureReason: null,
    });
  }
}
