// The main thread's native string extractor is optional: whatever keeps it from loading leaves
// strings decoded in JavaScript, with one log line that names the file. Loading it for real, and
// decoding with it, is tested against the bundle (test/e2e/resume-mirror-fill.test.ts), the one
// build whose unpack module takes an extractor.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { nativeStringsDisabled, stringExtractorFor } from '../../../../src/main/pool/string-extractor-file.js';
import { loadStringExtractor } from '../../../../src/main/pool/string-extractor.js';

const dir = mkdtempSync(join(tmpdir(), 'thread-host-extractor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function collectingLog() {
  const lines: Array<{ level: string; message: string; fields: Record<string, unknown> | undefined }> = [];
  return { lines, log: (level: 'info' | 'warn', message: string, fields?: Record<string, unknown>) => void lines.push({ level, message, fields }) };
}

test('no file recorded: JavaScript, and nothing logged', () => {
  const { lines, log } = collectingLog();
  expect(loadStringExtractor(null, log)).toBe('javascript');
  expect(lines).toEqual([]);
});

const PACKAGE_PATH = '@msgpackr-extract/msgpackr-extract-linux-x64/node.abi115.glibc.node';

/** A recorded extractor whose file is `contents` (or not there), with a package path that resolves. */
function recorded(name: string, contents?: string) {
  const extractor = { file: join(dir, name), packagePath: PACKAGE_PATH };
  if (contents !== undefined) writeFileSync(extractor.file, contents);
  return extractor;
}

test('neither the file nor the package path there: JavaScript, and a note naming both', () => {
  const { lines, log } = collectingLog();
  const extractor = { file: join(dir, 'missing.node'), packagePath: '@msgpackr-extract/msgpackr-extract-none-of-these/node.abi115.glibc.node' };
  expect(loadStringExtractor(extractor, log)).toBe('javascript');
  expect(lines).toEqual([
    {
      level: 'info',
      message: "msgpackr's native string extractor is not installed; the main thread decodes strings in JavaScript",
      fields: { ...extractor, error: expect.stringContaining(`Cannot find module '${extractor.packagePath}'`) },
    },
  ]);
});

test('a recorded file that is not there is found by its package path', () => {
  const { lines, log } = collectingLog();
  // The sources' unpack module takes no extractor, so the answer is JavaScript either way; a
  // package path that did not resolve, or a file that did not load, would have been logged.
  expect(loadStringExtractor(recorded('moved.node'), log)).toBe('javascript');
  expect(lines).toEqual([]);
});

test('a file that is there but does not load: JavaScript, and a warning naming it', () => {
  const { lines, log } = collectingLog();
  const extractor = recorded('broken.node', 'not a shared object');
  expect(loadStringExtractor(extractor, log)).toBe('javascript');
  expect(lines).toEqual([
    {
      level: 'warn',
      message: "msgpackr's native string extractor did not load; the main thread decodes strings in JavaScript",
      fields: { ...extractor, error: `Error: ${extractor.file}: file too short` },
    },
  ]);
});

test('a module without extractStrings: JavaScript, and a warning naming it', () => {
  const { lines, log } = collectingLog();
  const extractor = recorded('not-an-extractor.cjs', 'module.exports = { extract: () => null };\n');
  expect(loadStringExtractor(extractor, log)).toBe('javascript');
  expect(lines).toEqual([
    { level: 'warn', message: "msgpackr's native string extractor has no extractStrings; the main thread decodes strings in JavaScript", fields: extractor },
  ]);
});

test("msgpackr's switch is read as msgpackr reads it: 'true' in any case turns the extractor off", () => {
  expect(['true', 'TRUE', 'True'].map((value) => nativeStringsDisabled({ MSGPACKR_NATIVE_ACCELERATION_DISABLED: value }))).toEqual([true, true, true]);
  expect(['false', '1', 'yes', ''].map((value) => nativeStringsDisabled({ MSGPACKR_NATIVE_ACCELERATION_DISABLED: value }))).toEqual([false, false, false, false]);
  expect(nativeStringsDisabled({})).toBe(false);
  const recorded = { file: '/opt/thread-host/node_modules/x.node', packagePath: PACKAGE_PATH };
  expect([stringExtractorFor({}, recorded), stringExtractorFor({ MSGPACKR_NATIVE_ACCELERATION_DISABLED: 'true' }, recorded)]).toEqual([recorded, null]);
});
