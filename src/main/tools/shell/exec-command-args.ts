// The arguments of an `exec_command` call, decoded as the reference's serde struct decodes
// them: a failure is told to the model as `failed to parse function arguments: <serde's
// message>` and no item is made.

/** What the model asked for. */
export interface ExecCommandArgs {
  cmd: string;
  workdir: string | null;
  justification: string | null;
  requireEscalated: boolean;
  maxOutputTokens: number | null;
  yieldTimeMs: number | null;
  /** stdin stays open for `write_stdin` (the model asked for a terminal). */
  tty: boolean;
}

export type DecodedArgs = { ok: true; args: ExecCommandArgs } | { ok: false; message: string };

const STRING_FIELDS = ['cmd', 'workdir', 'justification', 'shell', 'sandbox_permissions'] as const;

export function decodeExecCommandArgs(text: string): DecodedArgs {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return fail(`${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail(`invalid type: ${typeName(value)}, expected struct ExecCommandArgs at line 1 column ${text.trimEnd().length}`);
  const raw = value as Record<string, unknown>;
  const at = `at line 1 column ${text.trimEnd().length}`;
  for (const key of STRING_FIELDS) {
    if (raw[key] !== undefined && raw[key] !== null && typeof raw[key] !== 'string') return fail(`invalid type: ${typeName(raw[key])}, expected a string ${at}`);
  }
  if (typeof raw.cmd !== 'string') return fail(`missing field \`cmd\` ${at}`);
  const permissions = raw.sandbox_permissions;
  if (typeof permissions === 'string' && permissions !== 'use_default' && permissions !== 'require_escalated') {
    return fail(`unknown variant \`${permissions}\`, expected \`use_default\` or \`require_escalated\` ${at}`);
  }
  return {
    ok: true,
    args: {
      cmd: raw.cmd,
      workdir: typeof raw.workdir === 'string' && raw.workdir !== '' ? raw.workdir : null,
      justification: typeof raw.justification === 'string' ? raw.justification : null,
      requireEscalated: permissions === 'require_escalated',
      maxOutputTokens: typeof raw.max_output_tokens === 'number' ? raw.max_output_tokens : null,
      yieldTimeMs: typeof raw.yield_time_ms === 'number' ? raw.yield_time_ms : null,
      tty: raw.tty === true,
    },
  };
}

function fail(message: string): DecodedArgs {
  return { ok: false, message: `failed to parse function arguments: ${message}` };
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'sequence';
  if (typeof value === 'object') return 'map';
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  if (typeof value === 'boolean') return `boolean \`${String(value)}\``;
  return `${typeof value}`;
}
