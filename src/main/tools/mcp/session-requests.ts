// The requests a thread makes of a session: a tool call, a resource read, a listing. Each runs
// under one deadline (the tool timeout unless the caller gives a shorter one) that covers the
// session's start too, and is aborted by the caller's signal. The SDK client multiplexes
// requests, so one thread's slow call never holds up another's.
import type { ElicitRequest, ElicitResult, ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../../../common/clock.js';
import { CallDeadline, DeadlineReason, untilAborted } from './call-deadline.js';
import type { McpLaunch } from './mcp-launch.js';
import type { McpSession } from './mcp-session.js';
import { toolAllowed } from './tool-filter.js';
import {
  callContext,
  describeSdkError,
  McpCallError,
  requestFailure,
  timedOut,
  toolCallResult,
  type McpToolCallResult,
} from './tool-call-result.js';

/** A caller's limits and callbacks for one request. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** At most the server's tool timeout; the shorter wins (as `call_with_preparation` does). */
  deadlineMs?: number;
}

/** A tool call's options: progress as the server reports it, and who answers elicitations. */
export interface CallToolOptions extends RequestOptions {
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  onElicitation?: (params: ElicitRequest['params'], signal: AbortSignal) => Promise<ElicitResult>;
}

// The SDK's own request timeout, kept behind ours: it only matters if our timer could not run.
const SDK_TIMEOUT_SLACK_MS = 1_000;

/** tools/call on `session` for the lease's `launch`; throws `McpCallError`. */
export async function callTool(
  session: McpSession,
  launch: McpLaunch,
  clock: Clock,
  tool: string,
  args: Record<string, unknown>,
  options: CallToolOptions,
): Promise<McpToolCallResult> {
  const context = callContext(launch.name, tool);
  if (!toolAllowed(launch, tool)) {
    // Ours: the reference offers no such tool to the model, so it has no text for the call.
    throw requestFailure(context, 'serverError', `tool \`${tool}\` is not enabled for this server`);
  }
  return withDeadline(session, launch, clock, options, context, 'tools/call', async (connection, signal, ms) => {
    const result = await session.inFlight(options.onElicitation ?? null, () =>
      connection.client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: ms + SDK_TIMEOUT_SLACK_MS,
        ...(options.onProgress === undefined ? {} : { onprogress: options.onProgress }),
      }),
    );
    return toolCallResult(launch.name, tool, result as Record<string, unknown>);
  });
}

/** resources/read of `uri`. */
export function readResource(session: McpSession, launch: McpLaunch, clock: Clock, uri: string, options: RequestOptions): Promise<ReadResourceResult> {
  // Ours, in the shape of the tool call's context.
  const context = `resources/read failed for \`${launch.name}\``;
  return withDeadline(session, launch, clock, options, context, 'resources/read', (connection, signal, ms) =>
    connection.client.readResource({ uri }, { signal, timeout: ms + SDK_TIMEOUT_SLACK_MS }),
  );
}

/** resources/list, every page (the session's cached list is what `status()` shows). */
export function listResources(session: McpSession, launch: McpLaunch, clock: Clock, options: RequestOptions): Promise<Resource[]> {
  const context = `resources/list failed for \`${launch.name}\``;
  return withDeadline(session, launch, clock, options, context, 'resources/list', async (connection, signal, ms) => {
    const resources: Resource[] = [];
    let cursor: string | undefined;
    do {
      const page = await connection.client.listResources({ cursor }, { signal, timeout: ms + SDK_TIMEOUT_SLACK_MS });
      resources.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor !== undefined && !signal.aborted);
    return resources;
  });
}

async function withDeadline<T>(
  session: McpSession,
  launch: McpLaunch,
  clock: Clock,
  options: RequestOptions,
  context: string,
  label: string,
  work: (connection: Awaited<ReturnType<McpSession['connection']>>, signal: AbortSignal, ms: number) => Promise<T>,
): Promise<T> {
  const ms = Math.min(launch.toolTimeoutMs, options.deadlineMs ?? launch.toolTimeoutMs);
  const deadline = new CallDeadline(clock, ms, options.signal);
  try {
    let connection;
    try {
      connection = await session.connection(deadline.signal);
    } catch (error) {
      if (error instanceof DeadlineReason) throw error;
      throw requestFailure(context, 'startupFailed', (error as Error).message);
    }
    // The deadline may have passed while the connection's promise settled.
    deadline.signal.throwIfAborted();
    return await untilAborted(work(connection, deadline.signal, ms), deadline.signal);
  } catch (error) {
    if (error instanceof McpCallError) throw error;
    if (error instanceof DeadlineReason) {
      throw error.kind === 'timedOut' ? requestFailure(context, 'timedOut', timedOut(label, ms)) : requestFailure(context, 'cancelled', 'cancelled');
    }
    const { failure, detail } = describeSdkError(error, label, ms);
    throw requestFailure(context, failure, detail);
  } finally {
    deadline.dispose();
  }
}
