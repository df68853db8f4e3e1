// The params of command/exec and its follow-ups, and of thread/shellCommand, as typed decoders
// declaring every field of the reference's structs (codex 0.171.0,
// test/fixtures/schema-experimental: CommandExecParams, CommandExecWriteParams, …).
import { arrayOf, boolean, DecodeError, invalidType, mapOf, optional, readingOf, string, u32, usize, withDefault, type Decoder } from './decode.js';
import { internallyTagged, struct } from './decode-struct.js';

const flag = () => withDefault(boolean, () => false);

/** serde's i64. */
const i64: Decoder<number> = (value) => {
  const reading = readingOf(value);
  if (reading?.kind !== 'integer') throw invalidType(value, 'i64');
  if (reading.value < -(2n ** 63n) || reading.value >= 2n ** 63n) throw new DecodeError(`invalid value: integer \`${reading.value}\`, expected i64`);
  return Number(reading.value);
};

/** serde's u16 (a terminal's rows and cols). */
const u16: Decoder<number> = (value) => {
  const n = u32(value);
  if (n > 0xffff) throw new DecodeError(`invalid value: integer \`${n}\`, expected u16`);
  return n;
};

const terminalSize = struct('CommandExecTerminalSize', { rows: u16, cols: u16 });

/** The wire `SandboxPolicy` (camelCase tags); checked for its tag, read by command-exec-sandbox.ts. */
const sandboxPolicy = internallyTagged('SandboxPolicy', ['dangerFullAccess', 'readOnly', 'externalSandbox', 'workspaceWrite']);

export const commandExecParams = struct('CommandExecParams', {
  command: arrayOf(string),
  processId: optional(string),
  tty: flag(),
  streamStdin: flag(),
  streamStdoutStderr: flag(),
  outputBytesCap: optional(usize),
  disableOutputCap: flag(),
  disableTimeout: flag(),
  timeoutMs: optional(i64),
  cwd: optional(string),
  env: optional(mapOf(optional(string))),
  size: optional(terminalSize),
  sandboxPolicy: optional(sandboxPolicy),
  permissionProfile: optional(string),
});

/** command/exec as decoded. */
export type CommandExecParams = ReturnType<typeof commandExecParams>;

export const commandExecWriteParams = struct('CommandExecWriteParams', {
  processId: string,
  deltaBase64: optional(string),
  closeStdin: flag(),
});

export const commandExecTerminateParams = struct('CommandExecTerminateParams', { processId: string });

export const commandExecResizeParams = struct('CommandExecResizeParams', { processId: string, size: terminalSize });

export const threadShellCommandParams = struct('ThreadShellCommandParams', { threadId: string, command: string, timeoutMs: optional(i64) });
