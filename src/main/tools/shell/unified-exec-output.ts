// The text a command becomes for the model under unified exec, in the reference's exact form
// (codex 0.171.0, `exec_command`):
//
//   Chunk ID: 3f9a2c
//   Wall time: 0.0403 seconds
//   Process exited with code 0
//   Original token count: 1
//   Output:
//   <output, cut to the budget behind a warning header when too long>
//
// The budget is `max_output_tokens` (10000 by default) counted as bytes: the reference keeps the
// first and last halves around a `…N chars truncated…` marker.
import { randomBytes } from 'node:crypto';
import { approxTokenCount, formattedTruncateText } from '../../../common/output-truncation.js';

export const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;

/** How the call's chunk ended: the process's exit code, or still running under a session. */
export type ChunkEnd = { kind: 'exited'; exitCode: number } | { kind: 'running'; sessionId: number };

/** The `function_call_output` text for one chunk of a command's output. */
export function unifiedExecOutputText(output: string, wallTimeMs: number, end: ChunkEnd, maxOutputTokens = DEFAULT_MAX_OUTPUT_TOKENS): string {
  const status = end.kind === 'exited' ? `Process exited with code ${end.exitCode}` : `Process running with session ID ${end.sessionId}`;
  return [
    `Chunk ID: ${randomBytes(3).toString('hex')}`,
    `Wall time: ${(wallTimeMs / 1000).toFixed(4)} seconds`,
    status,
    `Original token count: ${approxTokenCount(output)}`,
    'Output:',
    formattedTruncateText(output, { mode: 'bytes', limit: Math.max(0, Math.floor(maxOutputTokens)) }),
  ].join('\n');
}
