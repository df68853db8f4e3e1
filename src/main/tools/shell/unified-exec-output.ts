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
// The budget is the model's truncation policy, 10000 bytes (`…N chars truncated…` between the
// first and last halves), unless the call names `max_output_tokens`: then that many tokens of 4
// bytes (`…N tokens truncated…`), as the reference reads the argument.
import { randomBytes } from 'node:crypto';
import { approxTokensOfBytes, DEFAULT_TRUNCATION_POLICY, formattedTruncateText, type TruncationPolicy } from '../../../common/output-truncation.js';
import { lossyText } from '../exec/output-capture.js';

/** How the call's chunk ended: the process's exit code, or still running under a session. */
export type ChunkEnd = { kind: 'exited'; exitCode: number } | { kind: 'running'; sessionId: number };

/**
 * The `function_call_output` text for one chunk of a command's output. The original token count
 * is the raw bytes' (an invalid byte counts one), the truncation's the text's (where it became
 * U+FFFD, three), as the reference counts them.
 */
export function unifiedExecOutputText(bytes: Buffer, wallTimeMs: number, end: ChunkEnd, maxOutputTokens: number | null): string {
  const output = lossyText(bytes);
  const status = end.kind === 'exited' ? `Process exited with code ${end.exitCode}` : `Process running with session ID ${end.sessionId}`;
  return [
    `Chunk ID: ${randomBytes(3).toString('hex')}`,
    `Wall time: ${(wallTimeMs / 1000).toFixed(4)} seconds`,
    status,
    `Original token count: ${approxTokensOfBytes(bytes.length)}`,
    'Output:',
    formattedTruncateText(output, budgetOf(maxOutputTokens)),
  ].join('\n');
}

function budgetOf(maxOutputTokens: number | null): TruncationPolicy {
  return maxOutputTokens === null ? DEFAULT_TRUNCATION_POLICY : { mode: 'tokens', limit: Math.max(0, Math.floor(maxOutputTokens)) };
}
