// The host's supervised command runner (main thread only): it decides whether a command may
// run (the sandbox probe, the policy's bwrap command line, a free slot), runs it in its own
// process group, and turns the end into the reference's result and model text. It is the
// only way commands start, so `killAll()` reaches every one of them.
import { hasFullDiskWriteAccess, hasFullNetworkAccess, type SandboxPolicy } from './sandbox-policy.js';
import { SandboxSetupError, sandboxedCommand, type SandboxedCommand } from './bwrap-args.js';
import { probeSandbox } from './sandbox-probe.js';
import { CommandSlots } from './command-slots.js';
import { holdSyntheticTargets, releaseSyntheticTargets } from './synthetic-mounts.js';
import { killAllGroups } from './process-groups.js';
import { runProcess, type CommandEnding, type OutputStream, type ProcessControl, type ProcessOutcome, type SpawnSpec, type TerminalSize } from './running-command.js';
import { runOnTerminal } from './running-terminal.js';
import { TerminalSpawnError } from './terminal-launch.js';
import { ioErrorText } from '../../../common/io-error-text.js';
import { aggregateOutput, lossyText } from './output-capture.js';
import { formatExecOutputForModel, formatExecOutputStr } from './exec-output-format.js';
import { DEFAULT_TRUNCATION_POLICY, type TruncationPolicy } from '../../../common/output-truncation.js';

/** The reference's `DEFAULT_EXEC_COMMAND_TIMEOUT_MS`, for a call that names no timeout. */
export const DEFAULT_EXEC_COMMAND_TIMEOUT_MS = 10_000;
// Enough for a few threads' parallel tool calls on a small machine; each command is a process
// tree, and a runaway one must not starve the host of pids and memory.
export const DEFAULT_MAX_CONCURRENT_COMMANDS = 8;
// A queued command gives up after this: a slot held this long means the host is saturated.
export const DEFAULT_QUEUE_TIMEOUT_MS = 30_000;
// Long enough for a well-behaved program to clean up after SIGTERM, short for an interrupt.
export const DEFAULT_KILL_GRACE_MS = 1_000;
/** Set in a sandboxed command's environment when its network is off, as the reference sets it. */
export const CODEX_SANDBOX_NETWORK_DISABLED_ENV_VAR = 'CODEX_SANDBOX_NETWORK_DISABLED';

/** One command to run. `env` is the whole environment: nothing is inherited. */
export interface CommandRequest {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly policy: SandboxPolicy;
  /** Deadline of the run itself (not of the wait for a slot); default 10 s. */
  readonly timeoutMs?: number;
  /** Interrupt: refuses a queued command, ends a running one (SIGTERM, then SIGKILL). */
  readonly signal?: AbortSignal;
  /** Each chunk as it arrives (at most MAX_EXEC_OUTPUT_DELTAS_PER_CALL of them). */
  readonly onOutput?: (stream: OutputStream, chunk: Buffer) => void;
  readonly truncation?: TruncationPolicy;
  /** stdin is a pipe the caller writes through `onStarted`'s control (else /dev/null). */
  readonly stdinPipe?: boolean;
  /** Run on a pseudo-terminal of this size instead of pipes (stdin is then the terminal). */
  readonly terminal?: TerminalSize;
  /** Bytes kept of each of stdout and stderr (default 1 MiB). */
  readonly outputCapBytes?: number;
  /** Called once the process runs. */
  readonly onStarted?: (control: ProcessControl) => void;
}

/** A command that ran. */
export interface CommandResult {
  readonly kind: 'finished';
  readonly ending: CommandEnding;
  readonly exitCode: number;
  readonly timedOut: boolean;
  readonly durationMs: number;
  readonly sandboxed: boolean;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout then stderr, capped (see output-capture.ts). */
  readonly aggregatedOutput: string;
  /** Bytes each stream produced, including those past the cap. */
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  /** The function-call output for the model (`format_exec_output_for_model`). */
  readonly modelText: string;
  /** The output alone as the reference's `format_exec_output_str` gives it (ExecCommandEnd). */
  readonly formattedOutput: string;
}

/** Why a command did not run. */
export type CommandRefusalReason =
  | 'emptyCommand'
  | 'sandboxUnavailable'
  | 'sandboxSetupFailed'
  | 'queueTimedOut'
  | 'interrupted'
  | 'spawnFailed'
  | 'runnerClosed';

/** A command that did not run, with a sentence for the model or the user. */
export interface CommandRefusal {
  readonly kind: 'refused';
  readonly reason: CommandRefusalReason;
  readonly message: string;
  /** For `spawnFailed`: the spawn's error as the reference words it (`No such file or directory (os error 2)`). */
  readonly spawnError?: string;
}

export interface CommandRunnerOptions {
  readonly maxConcurrent?: number;
  readonly queueTimeoutMs?: number;
  readonly killGraceMs?: number;
  readonly bwrapPath?: string;
}

export class CommandRunner {
  private readonly slots: CommandSlots;
  private readonly queueTimeoutMs: number;
  private readonly killGraceMs: number;
  private readonly bwrapPath: string;
  private readonly running = new Set<Promise<unknown>>();
  private readonly closing = new AbortController();

  constructor(options: CommandRunnerOptions = {}) {
    this.slots = new CommandSlots(options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_COMMANDS);
    this.queueTimeoutMs = options.queueTimeoutMs ?? DEFAULT_QUEUE_TIMEOUT_MS;
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    this.bwrapPath = options.bwrapPath ?? 'bwrap';
  }

  /** Commands running now, and waiting for a slot. */
  get load(): { running: number; queued: number } {
    return { running: this.slots.inUse, queued: this.slots.queued };
  }

  /** Runs one command; never throws for the command's sake, and never runs it unsandboxed by fallback. */
  run(request: CommandRequest): Promise<CommandResult | CommandRefusal> {
    const run = this.admitAndRun(request);
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
    return run;
  }

  /** Shutdown: refuses new and queued commands, SIGKILLs every running group, waits for them to end. */
  async killAll(): Promise<void> {
    this.closing.abort();
    killAllGroups('SIGKILL');
    await Promise.allSettled([...this.running]);
  }

  private async admitAndRun(request: CommandRequest): Promise<CommandResult | CommandRefusal> {
    if (this.closing.signal.aborted) return refusal('runnerClosed', 'the command runner is shut down');
    if (request.argv.length === 0) return refusal('emptyCommand', 'command args are empty');
    const sandboxed = !hasFullDiskWriteAccess(request.policy);
    let mountProc = true;
    if (sandboxed) {
      const probe = await probeSandbox(this.bwrapPath);
      if (probe.kind === 'unavailable') {
        return refusal(
          'sandboxUnavailable',
          `sandbox unavailable: ${probe.bwrapPath} cannot start a sandbox on this machine (${probe.reason}); ` +
            `the command was not run, and is never run without the sandbox under ${request.policy.type}`,
        );
      }
      mountProc = probe.mountProc;
    }
    const signal = AbortSignal.any([this.closing.signal, ...(request.signal !== undefined ? [request.signal] : [])]);
    const wait = await this.slots.acquire(this.queueTimeoutMs, signal);
    if (wait === 'timedOut') return refusal('queueTimedOut', `no command slot became free within ${this.queueTimeoutMs} ms`);
    if (wait === 'aborted') return refusal('interrupted', 'the command was interrupted before it started');
    try {
      return await this.runInSlot(request, mountProc, signal);
    } finally {
      this.slots.release();
    }
  }

  private async runInSlot(request: CommandRequest, mountProc: boolean, signal: AbortSignal): Promise<CommandResult | CommandRefusal> {
    let command: SandboxedCommand;
    try {
      // Built after the wait, so the mounts match the filesystem the command will see.
      command = sandboxedCommand(request.argv, request.policy, request.cwd, { mountProc, tmpdir: process.env.TMPDIR });
    } catch (error) {
      if (error instanceof SandboxSetupError) return refusal('sandboxSetupFailed', error.message);
      throw error;
    }
    const env: Record<string, string> = { ...request.env };
    if (!hasFullNetworkAccess(request.policy)) env[CODEX_SANDBOX_NETWORK_DISABLED_ENV_VAR] = '1';
    // In name order, as the reference's spawn (a BTreeMap) passes it: `env` prints it so.
    const sortedEnv = Object.fromEntries(Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    const targets = command.kind === 'bwrap' ? command.syntheticTargets : [];
    holdSyntheticTargets(targets);
    const spec: SpawnSpec = {
      file: command.kind === 'bwrap' ? this.bwrapPath : command.argv[0]!,
      args: command.kind === 'bwrap' ? command.args : command.argv.slice(1),
      cwd: request.cwd,
      env: sortedEnv,
      nullDataFd: command.kind === 'bwrap' && command.needsNullFd,
      timeoutMs: request.timeoutMs ?? DEFAULT_EXEC_COMMAND_TIMEOUT_MS,
      killGraceMs: this.killGraceMs,
      signal,
      onOutput: request.onOutput,
      stdinPipe: request.stdinPipe,
      outputCapBytes: request.outputCapBytes,
      onStarted: request.onStarted,
    };
    let outcome: ProcessOutcome;
    try {
      outcome =
        request.terminal !== undefined
          ? await runOnTerminal({ ...spec, size: request.terminal, checkProgram: command.kind !== 'bwrap' })
          : await runProcess(spec);
    } catch (error) {
      const spawnError = error instanceof TerminalSpawnError ? error.message : ioErrorText(error);
      return { ...refusal('spawnFailed', `failed to start ${request.argv[0]}: ${(error as Error).message}`), spawnError };
    } finally {
      releaseSyntheticTargets(targets);
    }
    return finished(outcome, command.kind === 'bwrap', request.truncation ?? DEFAULT_TRUNCATION_POLICY);
  }
}

function finished(outcome: ProcessOutcome, sandboxed: boolean, truncation: TruncationPolicy): CommandResult {
  const stdoutBytes = outcome.stdout.bytes();
  const stderrBytes = outcome.stderr.bytes();
  const formattable = {
    exitCode: outcome.exitCode,
    durationMs: outcome.durationMs,
    timedOut: outcome.ending === 'timedOut',
    aggregatedOutput: lossyText(aggregateOutput(stdoutBytes, stderrBytes)),
  };
  return {
    kind: 'finished',
    ending: outcome.ending,
    ...formattable,
    sandboxed,
    stdout: lossyText(stdoutBytes),
    stderr: lossyText(stderrBytes),
    stdoutBytes: outcome.stdout.totalBytes,
    stderrBytes: outcome.stderr.totalBytes,
    modelText: formatExecOutputForModel(formattable, truncation),
    formattedOutput: formatExecOutputStr(formattable, truncation),
  };
}

function refusal(reason: CommandRefusalReason, message: string): CommandRefusal {
  return { kind: 'refused', reason, message };
}
