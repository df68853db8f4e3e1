// What a `command/exec` asks for, as the runner's request: the argv as given (no shell), the
// cwd resolved against the host's own, the host's environment (credentials dropped, as the
// model's commands') with the client's changes, the configured sandbox (or the request's
// `sandboxPolicy`), its deadline and output cap, and a terminal for `tty`.
import { isAbsolute, resolve } from 'node:path';
import { invalidParams, invalidRequest } from '../../../common/errors.js';
import type { HostContext } from '../../host-context.js';
import type { CommandExecParams } from '../../protocol/command-exec-params.js';
import { EXEC_OUTPUT_MAX_BYTES } from '../exec/output-capture.js';
import type { SandboxPolicy } from '../exec/sandbox-policy.js';
import type { CommandRequest } from '../exec/command-runner.js';
import type { TerminalSize } from '../exec/running-command.js';
import { DEFAULT_TERMINAL_SIZE } from '../exec/default-terminal-size.js';
import { hostEnvWithoutSecrets } from './command-env.js';
import { threadSandboxPolicy } from './thread-sandbox.js';

/** The reference's default for a command/exec that names no `timeoutMs` (`DEFAULT_EXEC_COMMAND_TIMEOUT_MS`). */
const DEFAULT_TIMEOUT_MS = 10_000;
// `disableTimeout`: the longest delay a Node timer takes (about 24.8 days).
const NO_TIMEOUT_MS = 2 ** 31 - 1;

/** The runner's request, the per-stream cap the live deltas keep to, and whether output streams. */
export interface ExecPlan {
  readonly request: Omit<CommandRequest, 'signal' | 'onStarted' | 'onOutput'>;
  readonly capBytes: number;
  readonly streamOutput: boolean;
}

/**
 * Checks the params in the reference's order and builds the run; throws the reference's
 * errors. A terminal (`tty`) also streams stdin and output, as the reference's does.
 */
export function execPlan(ctx: HostContext, params: CommandExecParams): ExecPlan {
  if (params.command.length === 0) throw invalidRequest('command must not be empty');
  if (params.size !== null && !params.tty) throw invalidParams('command/exec size requires tty: true');
  if (params.disableOutputCap && params.outputBytesCap !== null) throw invalidParams('command/exec cannot set both outputBytesCap and disableOutputCap');
  if (params.disableTimeout && params.timeoutMs !== null) throw invalidParams('command/exec cannot set both timeoutMs and disableTimeout');
  if (params.permissionProfile !== null) throw invalidRequest('command/exec permissionProfile is not supported: thread-host has no permission profiles');
  const policy = params.sandboxPolicy !== null ? wirePolicy(params.sandboxPolicy) : configuredPolicy(ctx);
  if (policy === null) throw invalidRequest('the configured sandbox_mode is none the host can apply');
  if (params.size !== null) checkedTerminalSize(params.size);
  if ((params.tty || params.streamStdin || params.streamStdoutStderr) && params.processId === null) {
    throw invalidRequest('command/exec tty or streaming requires a client-supplied processId');
  }
  const env = hostEnvWithoutSecrets(ctx.env);
  for (const [name, value] of Object.entries(params.env ?? {})) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  const capBytes = params.disableOutputCap ? Number.POSITIVE_INFINITY : params.outputBytesCap ?? EXEC_OUTPUT_MAX_BYTES;
  const timeoutMs = params.disableTimeout ? NO_TIMEOUT_MS : Math.max(0, Math.min(params.timeoutMs ?? DEFAULT_TIMEOUT_MS, NO_TIMEOUT_MS));
  const cwd = params.cwd === null ? ctx.cwd : isAbsolute(params.cwd) ? params.cwd : resolve(ctx.cwd, params.cwd);
  const terminal = params.tty ? { terminal: params.size ?? DEFAULT_TERMINAL_SIZE } : {};
  return {
    request: { argv: params.command, cwd, env, policy, timeoutMs, stdinPipe: params.streamStdin || params.tty, outputCapBytes: capBytes, ...terminal },
    capBytes,
    streamOutput: params.streamStdoutStderr || params.tty,
  };
}

/** A terminal size a client sent (command/exec, command/exec/resize): no zero rows or cols. */
export function checkedTerminalSize(size: TerminalSize): TerminalSize {
  if (size.rows === 0 || size.cols === 0) throw invalidParams('command/exec size rows and cols must be greater than 0');
  return size;
}

/** config.toml's `sandbox_mode` (and `-c`), as the threads that name no `sandbox` get it. */
function configuredPolicy(ctx: HostContext): SandboxPolicy | null {
  const mode = ctx.configDocument.sandbox_mode;
  return threadSandboxPolicy(ctx, typeof mode === 'string' ? mode : 'read-only');
}

/** The wire's `SandboxPolicy` (camelCase tags) as the runner's. */
function wirePolicy(value: unknown): SandboxPolicy {
  const policy = value as Record<string, unknown>;
  const flag = (key: string): boolean => policy[key] === true;
  switch (policy.type) {
    case 'dangerFullAccess':
      return { type: 'danger-full-access' };
    case 'readOnly':
      return { type: 'read-only', networkAccess: flag('networkAccess') };
    case 'workspaceWrite': {
      const roots = Array.isArray(policy.writableRoots) ? policy.writableRoots.filter((root): root is string => typeof root === 'string') : [];
      return {
        type: 'workspace-write',
        writableRoots: roots.map((root) => resolve(root)),
        networkAccess: flag('networkAccess'),
        excludeTmpdirEnvVar: flag('excludeTmpdirEnvVar'),
        excludeSlashTmp: flag('excludeSlashTmp'),
      };
    }
    default:
      throw invalidRequest('command/exec sandboxPolicy externalSandbox is not supported: thread-host runs its own sandbox');
  }
}
