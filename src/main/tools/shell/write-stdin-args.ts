// The arguments of a `write_stdin` call, decoded as the reference's serde struct decodes them
// (`session_id` required, `chars` "" and `yield_time_ms` 250 by default); a failure is told to
// the model as `failed to parse function arguments: <serde's message>`.

export interface WriteStdinArgs {
  sessionId: number;
  chars: string;
  yieldTimeMs: number;
  maxOutputTokens: number | null;
}

export type DecodedWriteStdin = { ok: true; args: WriteStdinArgs } | { ok: false; message: string };

const DEFAULT_WRITE_YIELD_TIME_MS = 250;

export function decodeWriteStdinArgs(text: string): DecodedWriteStdin {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return fail((error as Error).message);
  }
  const at = `at line 1 column ${text.trimEnd().length}`;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail(`invalid type: ${Array.isArray(value) ? 'sequence' : String(value === null ? 'null' : typeof value)}, expected struct WriteStdinArgs ${at}`);
  const raw = value as Record<string, unknown>;
  if (raw.session_id === undefined) return fail(`missing field \`session_id\` ${at}`);
  if (!Number.isInteger(raw.session_id)) return fail(`invalid type: ${typeName(raw.session_id)}, expected i32 ${at}`);
  if (raw.chars !== undefined && typeof raw.chars !== 'string') return fail(`invalid type: ${typeName(raw.chars)}, expected a string ${at}`);
  return {
    ok: true,
    args: {
      sessionId: raw.session_id as number,
      chars: (raw.chars as string | undefined) ?? '',
      yieldTimeMs: typeof raw.yield_time_ms === 'number' ? raw.yield_time_ms : DEFAULT_WRITE_YIELD_TIME_MS,
      maxOutputTokens: typeof raw.max_output_tokens === 'number' ? raw.max_output_tokens : null,
    },
  };
}

function fail(message: string): DecodedWriteStdin {
  return { ok: false, message: `failed to parse function arguments: ${message}` };
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  if (typeof value === 'number') return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``;
  if (typeof value === 'boolean') return `boolean \`${String(value)}\``;
  return Array.isArray(value) ? 'sequence' : 'map';
}
