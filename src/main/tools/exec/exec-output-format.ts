// The text a finished command becomes for the model, in the reference's exact form
// (codex-rs/core/src/tools/mod.rs `format_exec_output_for_model`):
//
//   Exit code: 0
//   Wall time: 1.2 seconds
//   Total output lines: 5000        <- only when truncation changed the line count
//   Output:
//   <aggregated output, middle-truncated to the policy's budget>
//
// A timed-out command's output is preceded by "command timed out after N milliseconds".
import { DEFAULT_TRUNCATION_POLICY, formattedTruncateText, lineCount, truncateText, type TruncationPolicy } from '../../../common/output-truncation.js';

/** What the formatting reads of a finished command. */
export interface FormattableExecOutput {
  readonly exitCode: number;
  readonly durationMs: number;
  readonly timedOut: boolean;
  /** stdout then stderr, as aggregated (and capped) by the runner. */
  readonly aggregatedOutput: string;
}

/** The function-call output text the model receives. */
export function formatExecOutputForModel(output: FormattableExecOutput, policy: TruncationPolicy = DEFAULT_TRUNCATION_POLICY): string {
  const content = contentWithTimeout(output);
  const totalLines = lineCount(content);
  const formatted = truncateText(content, policy);
  const sections = [`Exit code: ${output.exitCode}`, `Wall time: ${wallTimeSeconds(output.durationMs)} seconds`];
  if (totalLines !== lineCount(formatted)) sections.push(`Total output lines: ${totalLines}`);
  sections.push('Output:', formatted);
  return sections.join('\n');
}

/** The reference's `format_exec_output_str`: the output alone, truncated behind a warning header. */
export function formatExecOutputStr(output: FormattableExecOutput, policy: TruncationPolicy = DEFAULT_TRUNCATION_POLICY): string {
  return formattedTruncateText(contentWithTimeout(output), policy);
}

function contentWithTimeout(output: FormattableExecOutput): string {
  if (!output.timedOut) return output.aggregatedOutput;
  return `command timed out after ${Math.floor(output.durationMs)} milliseconds\n${output.aggregatedOutput}`;
}

// Rounded to one decimal as the reference does (`(secs * 10).round() / 10`), printed without a
// trailing ".0" as Rust prints a whole f32.
function wallTimeSeconds(durationMs: number): string {
  return String(Math.round(durationMs / 100) / 10);
}
