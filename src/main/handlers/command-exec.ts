// `command/exec` and its follow-ups: a client's own command, outside any thread, run by the
// host's CommandRunner under the configured sandbox (tools/shell/command-exec-*.ts). The reply
// waits for the command's end and follows every `command/exec/outputDelta` it streamed; the
// follow-ups reach only the connection's own processIds. Nothing here loads child_process: the
// runner is made on the first command (ShellHost).
import { internalError, invalidParams } from '../../common/errors.js';
import type { Connection } from '../connections.js';
import type { HostContext } from '../host-context.js';
import type * as C from '../protocol/command-exec-params.js';
import { checkedTerminalSize, execPlan } from '../tools/shell/command-exec-request.js';
import { Base64Error, decodeStrictBase64 } from '../protocol/strict-base64.js';

/** The reference's `CommandExecResponse`. */
export interface CommandExecResponse {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export async function commandExec(ctx: HostContext, connection: Connection, params: C.CommandExecParams): Promise<CommandExecResponse> {
  const { request, capBytes, streamOutput } = execPlan(ctx, params);
  const processId = params.processId;
  const streamed = { stdout: 0, stderr: 0 };
  const onOutput =
    streamOutput && processId !== null
      ? (stream: 'stdout' | 'stderr', chunk: Buffer): void => {
          // Each stream streams up to the cap; the chunk that reaches it says so, and nothing follows.
          const room = capBytes - streamed[stream];
          if (room <= 0) return;
          const sent = chunk.length <= room ? chunk : chunk.subarray(0, room);
          streamed[stream] += sent.length;
          const capReached = streamed[stream] >= capBytes;
          ctx.outgoing.notify(connection.id, 'command/exec/outputDelta', { processId, stream, deltaBase64: sent.toString('base64'), capReached });
        }
      : undefined;
  const result = await ctx.shell.exec.run(connection.id, processId, { ...request, ...(onOutput !== undefined ? { onOutput } : {}) });
  if (result.kind === 'refused') {
    throw internalError(result.spawnError !== undefined ? `failed to spawn command: ${result.spawnError}` : `command/exec failed: ${result.message}`);
  }
  // Streamed bytes are not repeated in the answer.
  if (onOutput !== undefined) return { exitCode: result.exitCode, stdout: '', stderr: '' };
  return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

export function commandExecWrite(ctx: HostContext, connection: Connection, params: ReturnType<typeof C.commandExecWriteParams>): Promise<Record<string, never>> {
  if (params.deltaBase64 === null && !params.closeStdin) throw invalidParams('command/exec/write requires deltaBase64 or closeStdin');
  const bytes = params.deltaBase64 === null ? null : decodedBase64(params.deltaBase64);
  return ctx.shell.exec.write(connection.id, params.processId, bytes, params.closeStdin);
}

function decodedBase64(text: string): Buffer {
  try {
    return decodeStrictBase64(text);
  } catch (error) {
    if (error instanceof Base64Error) throw invalidParams(`invalid deltaBase64: ${error.message}`);
    throw error;
  }
}

export function commandExecTerminate(ctx: HostContext, connection: Connection, params: ReturnType<typeof C.commandExecTerminateParams>): Record<string, never> {
  return ctx.shell.exec.terminate(connection.id, params.processId);
}

export function commandExecResize(ctx: HostContext, connection: Connection, params: ReturnType<typeof C.commandExecResizeParams>): Promise<Record<string, never>> {
  return ctx.shell.exec.resize(connection.id, params.processId, checkedTerminalSize(params.size));
}
