// `thread/shellCommand`: answered `{}` at once, as the reference; the command then runs in the
// thread (tools/shell/user-shell-command.ts), after the reply, so the turn's notices follow it
// as the reference's do. Nothing here waits for the command.
import { invalidRequest } from '../../common/errors.js';
import type { Connection } from '../connections.js';
import type { AfterReply } from '../methods.js';
import type { HostContext } from '../host-context.js';
import type { threadShellCommandParams } from '../protocol/command-exec-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { afterHistoryLoaded } from '../threads/pending-load.js';
import { requireLoaded } from './loaded-turn-lookup.js';

export function threadShellCommand(
  ctx: HostContext,
  _connection: Connection,
  params: ReturnType<typeof threadShellCommandParams>,
  afterReply: AfterReply,
): Record<string, never> | Promise<Record<string, never>> {
  const id = requireThreadId(params.threadId);
  return afterHistoryLoaded(ctx, id, () => {
    requireLoaded(ctx, id);
    if (params.command.trim() === '') throw invalidRequest('command must not be empty');
    // Loaded on the first command: it brings crypto and the runner, which a start never needs
    // before its first reply (test/e2e/start-path.test.ts).
    afterReply(() =>
      void import('../tools/shell/user-shell-command.js').then(({ startUserShellCommand }) => {
        const thread = ctx.directory.get(id);
        if (thread?.lifecycle.kind === 'loaded') startUserShellCommand(ctx, thread, params.command, params.timeoutMs);
      }),
    );
    return {};
  });
}
