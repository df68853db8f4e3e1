// The host's own tools for running commands, as the reference offers them to a model it has no
// metadata for (codex 0.171.0 with `mock-model`: unified exec): `exec_command` and
// `write_stdin`, word for word, first in the tools array. `[features] shell_tool = false`
// takes both away, as it does in the reference. `apply_patch` (freeform) follows them when
// `[features] apply_patch_tool = true`.
import type { ConfigDocument } from '../../config/config-document.js';

export const EXEC_COMMAND = 'exec_command';
export const WRITE_STDIN = 'write_stdin';
export const APPLY_PATCH = 'apply_patch';

const MAX_OUTPUT_TOKENS = {
  type: 'number',
  description: 'Output token budget. Defaults to 10000 tokens; larger requests may be capped by policy.',
};

export const EXEC_COMMAND_SPEC = {
  type: 'function',
  name: EXEC_COMMAND,
  description: 'Runs a command in a PTY, returning output or a session ID for ongoing interaction.',
  strict: false,
  parameters: {
    type: 'object',
    properties: {
      cmd: { type: 'string', description: 'Shell command to execute.' },
      justification: { type: 'string', description: 'User-facing approval question for `require_escalated`; omit otherwise.' },
      login: { type: 'boolean', description: 'Request login-shell startup. Omit to inherit.' },
      max_output_tokens: MAX_OUTPUT_TOKENS,
      prefix_rule: {
        type: 'array',
        description: 'Reusable approval prefix for `cmd`, only with `sandbox_permissions: "require_escalated"`; for example ["git", "pull"].',
        items: { type: 'string' },
      },
      sandbox_permissions: {
        type: 'string',
        description: 'Per-command sandbox override. Defaults to `use_default`; use `require_escalated` for unsandboxed execution.',
        enum: ['use_default', 'require_escalated'],
      },
      shell: { type: 'string', description: "Shell binary to launch. Defaults to the user's default shell." },
      tty: { type: 'boolean', description: 'True allocates a PTY for the command; false or omitted uses plain pipes.' },
      workdir: { type: 'string', description: 'Working directory for the command. Defaults to the turn cwd.' },
      yield_time_ms: { type: 'number', description: 'Wait before yielding output. Defaults to 10000 ms; effective range is 250-30000 ms.' },
    },
    required: ['cmd'],
    additionalProperties: false,
  },
} as const;

export const WRITE_STDIN_SPEC = {
  type: 'function',
  name: WRITE_STDIN,
  description: 'Writes characters to an existing unified exec session and returns recent output.',
  strict: false,
  parameters: {
    type: 'object',
    properties: {
      chars: { type: 'string', description: 'Bytes to write to stdin. Defaults to empty, which polls without writing.' },
      max_output_tokens: MAX_OUTPUT_TOKENS,
      session_id: { type: 'number', description: 'Identifier of the running unified exec session.' },
      yield_time_ms: {
        type: 'number',
        description: 'Wait before yielding output. Non-empty writes default to 250 ms and cap at 30000 ms; empty polls wait 5000-300000 ms by default.',
      },
    },
    required: ['session_id'],
    additionalProperties: false,
  },
} as const;

// The reference offers it only for models whose metadata says `apply_patch_tool_type:
// "freeform"`, which `mock-model` and any model it does not know lack; thread-host has no model
// catalog, so a thread-host key turns it on.
export const APPLY_PATCH_SPEC = {
  type: 'custom',
  name: APPLY_PATCH,
  description: 'The `apply_patch` tool can be used to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.',
  format: {
    type: 'grammar',
    syntax: 'lark',
    definition:
      'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF\nend_patch: "*** End Patch" LF?\n\nhunk: add_hunk | delete_hunk | update_hunk\nadd_hunk: "*** Add File: " filename LF add_line+\ndelete_hunk: "*** Delete File: " filename LF\nupdate_hunk: "*** Update File: " filename LF change_move? change?\n\nfilename: /(.+)/\nadd_line: "+" /(.*)/ LF -> line\n\nchange_move: "*** Move to: " filename LF\nchange: (change_context | change_line)+ eof_line?\nchange_context: ("@@" | "@@ " /(.+)/) LF\nchange_line: ("+" | "-" | " ") /(.*)/ LF\neof_line: "*** End of File" LF\n\n%import common.LF\n',
  },
} as const;

const HOST_TOOL_NAMES = new Set<string>([EXEC_COMMAND, WRITE_STDIN, APPLY_PATCH]);

/** The host's tools a thread with this configuration is offered, in the reference's order. */
export function hostToolsOf(document: ConfigDocument): unknown[] {
  const shell = featureOn(document, 'shell_tool', true) ? [EXEC_COMMAND_SPEC, WRITE_STDIN_SPEC] : [];
  return featureOn(document, 'apply_patch_tool', false) ? [...shell, APPLY_PATCH_SPEC] : shell;
}

/** True for an entry of a thread's tools that the host brought (not the client). */
export function isHostTool(spec: unknown): boolean {
  const name = (spec as { name?: unknown } | null)?.name;
  return typeof name === 'string' && HOST_TOOL_NAMES.has(name);
}

/** True when the thread's tools offer `name` as one of the host's. */
export function offersHostTool(tools: readonly unknown[], name: string): boolean {
  return tools.some((spec) => isHostTool(spec) && (spec as { name: string }).name === name);
}

/** `[features] <key>`, a boolean; anything else keeps the default. */
export function featureOn(document: ConfigDocument, key: string, fallback: boolean): boolean {
  const features = document.features;
  if (features === null || typeof features !== 'object' || Array.isArray(features)) return fallback;
  const value = (features as Record<string, unknown>)[key];
  return typeof value === 'boolean' ? value : fallback;
}
