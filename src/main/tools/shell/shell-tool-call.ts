// A call of one of the host's tools: `apply_patch` (apply-patch-call.ts) and `exec_command`
// (exec-command-call.ts) run;
// `write_stdin` finds no session, since commands run to their end before the model hears of
// them, and is answered as the reference answers a session it does not know.
import type { ToolAnswer, ToolCall } from '../../../common/actor-messages.js';
import type { HostContext } from '../../host-context.js';
import type { LoadedThread } from '../../threads/loaded-thread.js';
import { outputIdOf } from '../tool-output-id.js';
import { callExecCommand } from './exec-command-call.js';
import { APPLY_PATCH, WRITE_STDIN } from './shell-tool-specs.js';
import { callApplyPatch } from './apply-patch-call.js';

export function callShellTool(ctx: HostContext, thread: LoadedThread, turnId: string, call: ToolCall, startedAtMs: number, done: (answer: ToolAnswer) => void): void {
  if (call.name === APPLY_PATCH) return callApplyPatch(ctx, thread, turnId, call, startedAtMs, done);
  if (call.name !== WRITE_STDIN) return callExecCommand(ctx, thread, turnId, call, startedAtMs, done);
  done({ turnId, callId: call.callId, output: writeStdinText(call.input), outputId: outputIdOf(ctx), item: null });
}

function writeStdinText(input: string): string {
  let sessionId: unknown;
  try {
    sessionId = (JSON.parse(input) as { session_id?: unknown } | null)?.session_id;
  } catch (error) {
    return `failed to parse function arguments: ${(error as Error).message}`;
  }
  if (typeof sessionId !== 'number') return `failed to parse function arguments: missing field \`session_id\` at line 1 column ${input.trimEnd().length}`;
  return `write_stdin failed: Unknown process id ${sessionId}`;
}
