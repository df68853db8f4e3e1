// apply_patch's core: parse, work out every file's result, and only then write. The reference
// (codex-rs/apply-patch/src/lib.rs) writes hunk by hunk, so a patch whose second hunk fails
// has already applied its first; here a patch that does not apply changes nothing, and the
// failure texts stay the reference's. See patch-writer.ts for a failure during the writes.
import type { FileChange } from './file-change.js';
import { PatchApplyError } from './patch-apply-error.js';
import { PatchParseError } from './patch-parse-error.js';
import { parsePatch } from './patch-parser.js';
import { planPatch, type PatchPlan } from './patch-plan.js';
import { writePlannedFiles } from './patch-writer.js';

/** A patch that was applied: the `fileChange` entries and the reference's stdout text. */
export interface AppliedPatch {
  changes: FileChange[];
  /** "Success. Updated the following files:\nA …\nM …\nD …\n", paths as the patch wrote them. */
  summary: string;
}

/**
 * Parses `patchText` and applies it under `cwd` (relative paths resolve against it). Throws
 * `PatchParseError` for a malformed patch and `PatchApplyError` for one that does not apply.
 */
export async function applyPatch(patchText: string, cwd: string): Promise<AppliedPatch> {
  const plan = await planPatch(parsePatch(patchText), cwd);
  await writePlannedFiles(plan.files);
  return { changes: plan.changes, summary: formatSummary(plan.summary) };
}

/** What `applyPatch` would do, reading but writing nothing (for approval prompts). */
export async function previewPatch(patchText: string, cwd: string): Promise<FileChange[]> {
  return (await planPatch(parsePatch(patchText), cwd)).changes;
}

/** The reference's `print_summary`: added, then modified, then deleted, each in patch order. */
export function formatSummary(summary: PatchPlan['summary']): string {
  const lines = [
    'Success. Updated the following files:',
    ...summary.added.map((path) => `A ${path}`),
    ...summary.modified.map((path) => `M ${path}`),
    ...summary.deleted.map((path) => `D ${path}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** The stderr line the reference's command prints for a failure of `applyPatch`. */
export function failureReport(error: PatchParseError | PatchApplyError): string {
  return `${error instanceof PatchParseError ? error.report() : error.message}\n`;
}
