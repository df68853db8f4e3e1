// One `apply_patch` call (a freeform custom call; offered only with `[features]
// apply_patch_tool = true`, see shell-tool-specs.ts): the patch is checked against the files
// first, so a patch that does not parse or apply makes no item, as in the reference; one that
// does becomes a `fileChange` item, is written, and the model gets the reference's text.
// Under approval policy untrusted every patch is asked for with
// `item/fileChange/requestApproval`; under the others, one that writes where the thread's
// sandbox does not let a command write (any patch under read-only) is asked for when the policy
// lets the host ask to leave the sandbox (approval-policy.ts), and refused otherwise, with the
// reference's texts.
import { performance } from 'node:perf_hooks';
import { isAbsolute, relative, resolve } from 'node:path';
import type { ToolAnswer, ToolCall } from '../../../common/actor-messages.js';
import type { FileChangeItem } from '../../../common/wire-types.js';
import type { HostContext } from '../../host-context.js';
import type { LoadedThread } from '../../threads/loaded-thread.js';
import { uuidv7 } from '../../protocol/uuid.js';
import { formatExecOutputForModel } from '../exec/exec-output-format.js';
import { hasFullDiskWriteAccess, type SandboxPolicy } from '../exec/sandbox-policy.js';
import { writableRootsWithCwd } from '../exec/writable-roots.js';
import { applyPatch, previewPatch } from '../patch/patch-applier.js';
import { PatchApplyError } from '../patch/patch-apply-error.js';
import { PatchParseError } from '../patch/patch-parse-error.js';
import type { FileChange } from '../patch/file-change.js';
import { TurnDiffTracker } from '../patch/turn-diff-tracker.js';
import { asksForEverything, mayAskToLeaveSandbox } from './approval-policy.js';
import { askPatchApproval, interruptForCancel, type ApprovalDecision } from './exec-approval.js';
import { threadSandboxPolicy } from './thread-sandbox.js';

/** The reference's text to the model (and the record's stderr) for a patch the user declined. */
export const REJECTED_TEXT = 'patch rejected by user';
/** The reference's text to the model for such a patch under a policy that may not ask (never; granular without sandbox_approval). */
export const OUTSIDE_REFUSED_TEXT = 'patch rejected: writing outside of the project; rejected by user approval settings';
/** The same refusal in a read-only sandbox, where nothing is writable. */
export const READ_ONLY_REFUSED_TEXT = 'patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings';

export function callApplyPatch(ctx: HostContext, thread: LoadedThread, turnId: string, call: ToolCall, startedAtMs: number, done: (answer: ToolAnswer) => void): void {
  const answer = (output: string, item: FileChangeItem | null, printed?: { stdout: string; stderr: string }): void =>
    done({ turnId, callId: call.callId, output, outputId: `ctco_${uuidv7(ctx.clock.now())}`, item, ...(printed === undefined ? {} : { itemOutput: printed }) });
  const settings = thread.settings!;
  const started = performance.now();
  const asking = { always: asksForEverything(settings.approvalPolicy), toLeaveSandbox: mayAskToLeaveSandbox(settings.approvalPolicy) };
  void patchCall(ctx, thread, turnId, call, startedAtMs, settings.cwd, threadSandboxPolicy(ctx, settings.sandboxMode), asking, started, answer).catch((error: unknown) => {
    ctx.log('warn', 'apply_patch failed', { threadId: thread.id, callId: call.callId, error: (error as Error).message });
    answer(`apply_patch failed: ${(error as Error).message}`, null);
  });
}

async function patchCall(
  ctx: HostContext,
  thread: LoadedThread,
  turnId: string,
  call: ToolCall,
  startedAtMs: number,
  cwd: string,
  policy: SandboxPolicy | null,
  asking: { always: boolean; toLeaveSandbox: boolean },
  started: number,
  answer: (output: string, item: FileChangeItem | null, printed?: { stdout: string; stderr: string }) => void,
): Promise<void> {
  let changes: FileChange[];
  try {
    changes = await previewPatch(call.input, cwd);
  } catch (error) {
    if (error instanceof PatchParseError || error instanceof PatchApplyError) return answer(`apply_patch verification failed: ${error.message}`, null);
    throw error;
  }
  const unwritable = policy === null ? cwd : firstUnwritable(changes, policy, cwd);
  if (unwritable !== null && !asking.always && (policy === null || !asking.toLeaveSandbox)) return answer(policy?.type === 'read-only' ? READ_ONLY_REFUSED_TEXT : OUTSIDE_REFUSED_TEXT, null);
  const item: FileChangeItem = { type: 'fileChange', id: call.callId, changes: byPath(changes), status: 'inProgress', startedAtMs, completedAtMs: null };
  thread.toolItemStarted(turnId, item);
  ctx.outgoing.notifyMany(thread.subscribers, 'item/started', { item, threadId: thread.id, turnId, startedAtMs });
  if ((unwritable !== null || asking.always) && !changes.every((change) => ctx.shell.approvedForSession(thread, sessionKey(change)))) {
    const decision = await new Promise<ApprovalDecision>((decided) => askPatchApproval(ctx, thread, turnId, item, decided));
    if (decision === 'acceptForSession') for (const change of changes) ctx.shell.approveForSession(thread, sessionKey(change));
    if (decision === 'decline') {
      const declined: FileChangeItem = { ...item, status: 'declined', completedAtMs: ctx.clock.now() };
      completed(ctx, thread, turnId, declined);
      return answer(REJECTED_TEXT, declined, { stdout: '', stderr: REJECTED_TEXT });
    }
    // A cancel ends the turn with the item left in progress and no record of it, as the
    // reference's; the history keeps the call's output.
    if (decision === 'cancel') {
      interruptForCancel(ctx, thread, turnId);
      return answer(`aborted by user after ${((ctx.clock.now() - startedAtMs) / 1000).toFixed(1)}s`, null);
    }
  }
  let finished: FileChangeItem;
  let output: string;
  let printed: { stdout: string; stderr: string };
  const tracker = ctx.shell.turnDiff(thread.id, turnId, () => new TurnDiffTracker(cwd));
  await tracker.beforePatch(changes);
  try {
    const applied = await applyPatch(call.input, cwd);
    finished = { ...item, changes: byPath(applied.changes), status: 'completed', completedAtMs: ctx.clock.now() };
    printed = { stdout: applied.summary, stderr: '' };
    output = formatExecOutputForModel({ exitCode: 0, durationMs: performance.now() - started, timedOut: false, aggregatedOutput: applied.summary });
  } catch (error) {
    if (!(error instanceof PatchParseError || error instanceof PatchApplyError)) throw error;
    finished = { ...item, status: 'failed', completedAtMs: ctx.clock.now() };
    printed = { stdout: '', stderr: `${error.message}\n` };
    output = `apply_patch verification failed: ${error.message}`;
  }
  completed(ctx, thread, turnId, finished);
  // The turn's diff so far follows each patch applied, as the reference sends it.
  const diff = finished.status === 'completed' ? await tracker.diff() : null;
  if (diff !== null) {
    tracker.lastDiff = diff;
    ctx.outgoing.notifyMany(thread.subscribers, 'turn/diff/updated', { threadId: thread.id, turnId, diff });
  }
  answer(output, finished, printed);
}

// The reference remembers a patch approved for the session by the files it changes: a later
// patch that changes only those files is not asked for again.
function sessionKey(change: FileChange): string {
  return `patch\0${change.path}`;
}

function completed(ctx: HostContext, thread: LoadedThread, turnId: string, item: FileChangeItem): void {
  thread.toolItemCompleted(turnId, item);
  ctx.outgoing.notifyMany(thread.subscribers, 'item/completed', { item, threadId: thread.id, turnId, contentTokenCount: null, completedAtMs: item.completedAtMs });
}

// The wire lists a patch's files by path, and an update that moves its file says where.
function byPath(changes: readonly FileChange[]): FileChangeItem['changes'] {
  return [...changes]
    .map((change) => (change.kind.type === 'update' && change.kind.move_path !== null ? { ...change, diff: `${change.diff}\n\nMoved to: ${change.kind.move_path}` } : change))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

// The first path the patch writes (a move's target included) that the sandbox would not let a
// command write; null when every one is writable.
function firstUnwritable(changes: readonly FileChange[], policy: SandboxPolicy, cwd: string): string | null {
  if (hasFullDiskWriteAccess(policy)) return null;
  const roots = writableRootsWithCwd(policy, cwd);
  const inside = (path: string): boolean =>
    roots.some(({ root, readOnlySubpaths }) => within(root, path) && !readOnlySubpaths.some((sub) => within(sub, path)));
  for (const change of changes) {
    const targets = [change.path, ...(change.kind.type === 'update' && change.kind.move_path !== null ? [change.kind.move_path] : [])];
    for (const target of targets) if (!inside(resolve(cwd, target))) return target;
  }
  return null;
}

function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
