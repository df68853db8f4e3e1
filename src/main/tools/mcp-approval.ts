// Whether an MCP tool call may run, as the reference decides (codex 0.171.0, probed): a tool
// that says it only reads (`readOnlyHint`), or one its server approves (`approval_mode` /
// `default_tools_approval_mode = "approve"`), runs; under approval policy `never` any other is
// refused; otherwise the client is asked with an `mcpServer/elicitation/request` and its
// decision stands (accept, decline, cancel; `persist: "session"` approves the tool for the rest
// of the thread's life on this host).
import type { HostContext } from '../host-context.js';
import type { LoadedThread } from '../threads/loaded-thread.js';
import type { McpToolTarget } from './thread-mcp.js';

export type McpApproval = { kind: 'approved' } | { kind: 'refused'; message: string };

const NEVER = 'MCP tool call requires approval, but approval policy is never';
const DECLINED = 'user rejected MCP tool call';
const CANCELLED = 'user cancelled MCP tool call';

export function approveMcpCall(
  ctx: HostContext,
  thread: LoadedThread,
  turnId: string,
  target: McpToolTarget,
  readOnlyHint: boolean | null,
  args: unknown,
  decided: (approval: McpApproval) => void,
): void {
  const { server, tool } = target;
  const mode = server.tools[tool.name]?.approvalMode ?? server.defaultToolsApprovalMode ?? 'auto';
  const key = `${server.name}/${tool.name}`;
  if (readOnlyHint === true || mode === 'approve' || ctx.mcp.approvedForSession(thread.id, key)) {
    decided({ kind: 'approved' });
    return;
  }
  if (thread.settings?.approvalPolicy === 'never') {
    decided({ kind: 'refused', message: NEVER });
    return;
  }
  const params = {
    threadId: thread.id,
    turnId,
    serverName: server.name,
    environmentId: null,
    mode: 'form',
    _meta: {
      codex_approval_kind: 'mcp_tool_call',
      persist: ['session', 'always'],
      tool_name: tool.name,
      tool_description: tool.description ?? '',
      tool_params: args,
      tool_params_display: paramsDisplay(args),
    },
    message: `Allow the ${server.name} MCP server to run tool ${JSON.stringify(tool.name)}?`,
    requestedSchema: { type: 'object', properties: {} },
  };
  ctx.serverRequests.send(thread.subscribers, 'mcpServer/elicitation/request', params, { threadId: thread.id, turnId }, (answer) => {
    const result = answer.kind === 'result' ? (answer.result as { action?: unknown; _meta?: { persist?: unknown } } | null) : null;
    if (result?.action === 'accept') {
      if (result._meta?.persist === 'session' || result._meta?.persist === 'always') ctx.mcp.approveForSession(thread.id, key);
      decided({ kind: 'approved' });
    } else {
      decided({ kind: 'refused', message: result?.action === 'decline' ? DECLINED : CANCELLED });
    }
  }, { announceResolved: true });
}

// The reference lists each argument for the prompt; a tool without arguments lists none.
function paramsDisplay(args: unknown): Array<{ name: string; value: unknown; display_name: string }> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return [];
  return Object.entries(args).map(([name, value]) => ({ name, value, display_name: name }));
}
