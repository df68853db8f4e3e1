// One `exec_command` call, as the reference's unified exec runs it for the model: the item
// (`commandExecution`) starts, the command is asked for where the policy wants it (every one
// under untrusted; an escalation where the host may ask to leave the sandbox), the
// command runs through the host's CommandRunner (never in a pool worker) under the thread's
// sandbox, its output streams as `item/commandExecution/outputDelta`, and the model is answered
// after the yield time with the output so far: the exit code when it ended, else the session
// id that `write_stdin` reads it by (command-run.ts; docs/tools.md, Commands).
import { resolve } from 'node:path';
import type { ToolAnswer, ToolCall } from '../../../common/actor-messages.js';
import type { CommandExecutionItem } from '../../../common/wire-types.js';
import { joinWords } from '../../../common/shell-words.js';
import type { HostContext } from '../../host-context.js';
import type { LoadedThread } from '../../threads/loaded-thread.js';
import { outputIdOf } from '../tool-output-id.js';
import { commandActionsOf } from './command-actions.js';
import { decodeExecCommandArgs, type ExecCommandArgs } from './exec-command-args.js';
import { rustDebugString } from '../../protocol/decode.js';
import { approvalPolicyName, asksForEverything, granularOf, mayAskToLeaveSandbox } from './approval-policy.js';
import { dangerRefusal, dangerousWords, scriptMightBeDangerous } from './dangerous-command.js';
import { askApproval, execpolicyAmendmentOf, interruptForCancel, type ApprovalDecision } from './exec-approval.js';
import { runCommand } from './command-run.js';
import { announceCompleted, announceStarted } from './command-item-notices.js';

/** The reference's text to the model for a command refused for `reason` (its message, Debug-printed twice). */
function rejectedText(reason: string): string {
  return `exec_command failed: CreateProcess { message: ${rustDebugString(`Rejected(${rustDebugString(reason)})`)} }`;
}

/** The reference's text to the model for a command the user declined. */
export const DECLINED_TEXT = rejectedText('rejected by user');

/** Runs the call; `done` gets its answer. */
export function callExecCommand(ctx: HostContext, thread: LoadedThread, turnId: string, call: ToolCall, startedAtMs: number, done: (answer: ToolAnswer) => void): void {
  const answer = (output: string, item: CommandExecutionItem | null): void => done({ turnId, callId: call.callId, output, outputId: outputIdOf(ctx), item });
  const decoded = decodeExecCommandArgs(call.input);
  if (!decoded.ok) return answer(decoded.message, null);
  const { args } = decoded;
  const settings = thread.settings!;
  if (args.requireEscalated && !mayAskToLeaveSandbox(settings.approvalPolicy)) {
    const policyName = approvalPolicyName(settings.approvalPolicy);
    return answer(`approval policy is ${policyName}; reject command — you cannot ask for escalated permissions if the approval policy is ${policyName}`, null);
  }
  const cwd = args.workdir === null ? settings.cwd : resolve(settings.cwd, args.workdir);
  const argv = ['/bin/bash', '-lc', args.cmd];
  const item: CommandExecutionItem = {
    type: 'commandExecution',
    id: call.callId,
    pluginId: null,
    scriptPath: null,
    command: joinWords(argv),
    cwd,
    processId: null,
    source: 'agent',
    status: 'inProgress',
    commandActions: commandActionsOf(args.cmd, cwd),
    aggregatedOutput: null,
    exitCode: null,
    durationMs: null,
    startedAtMs,
    completedAtMs: null,
  };
  // Without a sandbox there is nothing to leave: an escalation runs as any other command.
  const fullAccess = settings.sandboxMode === 'danger-full-access';
  const escalated = args.requireEscalated && !fullAccess;
  const policy = settings.approvalPolicy;
  const dangerous = scriptMightBeDangerous(args.cmd);
  // Never refuses a dangerous command, under danger-full-access too (probed).
  if (dangerous && policy === 'never') return answer(rejectedText(dangerRefusal(item.command)), null);
  const run = (announced: boolean): void => void runCommand(ctx, thread, turnId, item, argv, args, escalated, announced).then((end) => answer(end.output, end.item));
  const everyCommandAsks = escalated || asksForEverything(policy);
  if (!everyCommandAsks && !(dangerous && policy !== 'never')) return run(false);
  if (ctx.shell.approvedForSession(thread, item.command)) return run(false);
  // Asked first: the item shows no process yet, and comes from the agent.
  announceStarted(ctx, thread, turnId, item);
  const granular = granularOf(policy);
  const amendment = granular !== null && !granular.sandbox_approval ? null : execpolicyAmendmentOf(args.cmd, argv, everyCommandAsks ? () => true : dangerousWords);
  askApproval(ctx, thread, turnId, item, amendment, args.justification, (decision) => {
    if (decision === 'accept' || decision === 'acceptForSession') {
      if (decision === 'acceptForSession') ctx.shell.approveForSession(thread, item.command);
      return run(true);
    }
    refused(ctx, thread, turnId, item, args, decision, answer);
  });
}

// Declined or cancelled: the item ends declined with nothing run, and the history keeps no
// item for it (only the call and its output), as the reference's. A cancel interrupts the
// turn before the answer reaches the actor, so the turn ends instead of sampling again.
function refused(
  ctx: HostContext,
  thread: LoadedThread,
  turnId: string,
  item: CommandExecutionItem,
  _args: ExecCommandArgs,
  decision: Exclude<ApprovalDecision, 'accept' | 'acceptForSession'>,
  answer: (output: string, item: CommandExecutionItem | null) => void,
): void {
  const completedAtMs = ctx.clock.now();
  announceCompleted(ctx, thread, turnId, { ...item, status: 'declined', completedAtMs });
  if (decision === 'decline') return answer(DECLINED_TEXT, null);
  interruptForCancel(ctx, thread, turnId);
  const seconds = Math.round((completedAtMs - (item.startedAtMs ?? completedAtMs)) / 100) / 10;
  answer(`Wall time: ${seconds} seconds\naborted by user`, null);
}
