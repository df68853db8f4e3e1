// A call of one of the host's tools: `apply_patch` (apply-patch-call.ts), `exec_command`
// (exec-command-call.ts) and `write_stdin` (write-stdin-call.ts), which reads and feeds the
// sessions `exec_command` left running.
import type { ToolAnswer, ToolCall } from '../../../common/actor-messages.js';
import type { HostContext } from '../../host-context.js';
import type { LoadedThread } from '../../threads/loaded-thread.js';
import { callExecCommand } from './exec-command-call.js';
import { APPLY_PATCH, WRITE_STDIN } from './shell-tool-specs.js';
import { callApplyPatch } from './apply-patch-call.js';
import { callWriteStdin } from './write-stdin-call.js';

export function callShellTool(ctx: HostContext, thread: LoadedThread, turnId: string, call: ToolCall, startedAtMs: number, done: (answer: ToolAnswer) => void): void {
  if (call.name === APPLY_PATCH) return callApplyPatch(ctx, thread, turnId, call, startedAtMs, done);
  if (call.name === WRITE_STDIN) return callWriteStdin(ctx, thread, turnId, call, done);
  callExecCommand(ctx, thread, turnId, call, startedAtMs, done);
}
