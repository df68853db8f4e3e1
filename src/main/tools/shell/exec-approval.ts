// Asking the thread's clients to approve a command (one that asks to run outside the sandbox,
// `sandbox_permissions: "require_escalated"`, or any under approval policy untrusted), with the
// reference's request (`item/commandExecution/requestApproval`) and its reading of the answer;
// and a patch that writes where the sandbox does not let it (`item/fileChange/requestApproval`).
import type { CommandExecutionItem, FileChangeItem } from '../../../common/wire-types.js';
import type { HostContext } from '../../host-context.js';
import type { LoadedThread } from '../../threads/loaded-thread.js';
import type { ClientAnswer } from '../../server-requests/server-requests.js';
import { plainCommands } from '../../../common/shell-words.js';

/** What the user decided; `cancel` also ends the turn, as the reference's does. */
export type ApprovalDecision = 'accept' | 'acceptForSession' | 'decline' | 'cancel';

/** Sends the request; `decided` gets the decision in the same task as the answer (or the turn's end). */
export function askApproval(
  ctx: HostContext,
  thread: LoadedThread,
  turnId: string,
  item: CommandExecutionItem,
  amendment: readonly string[] | null,
  reason: string | null,
  decided: (decision: ApprovalDecision) => void,
): void {
  const params = {
    kind: 'command',
    threadId: thread.id,
    turnId,
    itemId: item.id,
    startedAtMs: item.startedAtMs,
    environmentId: 'local',
    // The reference leaves the reason out, rather than null, when the model gave none.
    ...(reason === null ? {} : { reason }),
    command: item.command,
    cwd: item.cwd,
    commandActions: item.commandActions,
    // Without a rule to offer (a granular policy that may not ask to leave the sandbox), only accept or cancel.
    ...(amendment === null
      ? { availableDecisions: ['accept', 'cancel'] }
      : { proposedExecpolicyAmendment: amendment, availableDecisions: ['accept', { acceptWithExecpolicyAmendment: { execpolicy_amendment: amendment } }, 'cancel'] }),
  };
  request(ctx, thread, turnId, 'item/commandExecution/requestApproval', params, decided);
}

/**
 * The prefix rule the request offers to keep: the script's first command that needs asking
 * for (`prompts`) when the script is plain words and operators (`ls -la | wc -l` offers
 * `["ls", "-la"]` when every command needs it), else the whole argv, as the reference offers it.
 */
export function execpolicyAmendmentOf(script: string, argv: readonly string[], prompts: (words: readonly string[]) => boolean): readonly string[] {
  return plainCommands(script)?.find(prompts) ?? argv;
}

/** Asks for a patch, as the reference does: no reason and no root to grant. */
export function askPatchApproval(ctx: HostContext, thread: LoadedThread, turnId: string, item: FileChangeItem, decided: (decision: ApprovalDecision) => void): void {
  const params = { threadId: thread.id, turnId, itemId: item.id, startedAtMs: ctx.clock.now(), reason: null, grantRoot: null };
  request(ctx, thread, turnId, 'item/fileChange/requestApproval', params, decided);
}

/** A cancel ends the turn: the actor is told to interrupt it before the call's answer reaches it, so it does not sample again. */
export function interruptForCancel(ctx: HostContext, thread: LoadedThread, turnId: string): void {
  if (thread.runningTurnId !== turnId) return;
  ctx.pool.linkOf(thread.id)?.api.interrupt(thread.id, turnId).catch(() => undefined);
  ctx.serverRequests.cancelTurn(thread.id, turnId);
}

function request(ctx: HostContext, thread: LoadedThread, turnId: string, method: string, params: Record<string, unknown>, decided: (decision: ApprovalDecision) => void): void {
  const owner = { threadId: thread.id, turnId };
  // While it waits, the thread is active and waiting on approval, as the reference shows it.
  const statusChanged = (): void => ctx.outgoing.broadcast('thread/status/changed', { threadId: thread.id, status: thread.status });
  if (thread.approvalAsked()) statusChanged();
  ctx.serverRequests.send(thread.subscribers, method, params, owner, (answer) => {
    if (thread.approvalSettled()) statusChanged();
    decided(decisionOf(answer));
  }, { announceResolved: true });
}

// An answer that does not decode is a refusal; a request cancelled by the turn's end is the
// turn's cancel. An amendment (a prefix rule to keep) is taken as approval for the session.
function decisionOf(answer: ClientAnswer): ApprovalDecision {
  if (answer.kind === 'cancelled') return 'cancel';
  if (answer.kind !== 'result') return 'decline';
  const decision = (answer.result as { decision?: unknown } | null)?.decision;
  if (decision === 'accept' || decision === 'acceptForSession' || decision === 'decline' || decision === 'cancel') return decision;
  if (decision !== null && typeof decision === 'object' && 'acceptWithExecpolicyAmendment' in decision) return 'acceptForSession';
  return 'decline';
}
