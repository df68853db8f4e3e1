// The model's view of a finished command, pinned to the reference's exact text
// (core/src/tools/mod.rs, utils/string/src/truncate.rs, utils/output-truncation/src/lib.rs).
import { expect, test } from 'vitest';
import { formatExecOutputForModel, formatExecOutputStr } from '../../../../../src/main/tools/exec/exec-output-format.js';
import { aggregateOutput } from '../../../../../src/main/tools/exec/output-capture.js';
import { lineCount, truncateText } from '../../../../../src/common/output-truncation.js';

const finished = (aggregatedOutput: string, durationMs = 1234, exitCode = 0) => ({ exitCode, durationMs, timedOut: false, aggregatedOutput });

test('short output is shown whole after the exit code and the wall time', () => {
  expect(formatExecOutputForModel(finished('hello\nworld\n'))).toBe('Exit code: 0\nWall time: 1.2 seconds\nOutput:\nhello\nworld\n');
  expect(formatExecOutputForModel(finished('', 2000, 3))).toBe('Exit code: 3\nWall time: 2 seconds\nOutput:\n');
});

test('a timed-out command says so before its output, with its duration in milliseconds', () => {
  const output = { exitCode: 124, durationMs: 1003.7, timedOut: true, aggregatedOutput: 'partial\n' };
  expect(formatExecOutputForModel(output)).toBe(
    'Exit code: 124\nWall time: 1 seconds\nOutput:\ncommand timed out after 1003 milliseconds\npartial\n',
  );
});

test('long multi-line output keeps 5000 bytes at each end and reports the total line count', () => {
  const line = 'xxxxxxxxx\n';
  const text = formatExecOutputForModel(finished(line.repeat(2000), 1250, 1));
  expect(text).toBe(
    `Exit code: 1\nWall time: 1.3 seconds\nTotal output lines: 2000\nOutput:\n${line.repeat(500)}…10000 chars truncated…${line.repeat(500)}`,
  );
});

test('one long line is cut in the middle without a line count (the count did not change)', () => {
  const text = formatExecOutputForModel(finished('a'.repeat(20_000), 50));
  expect(text).toBe(`Exit code: 0\nWall time: 0.1 seconds\nOutput:\n${'a'.repeat(5000)}…10000 chars truncated…${'a'.repeat(5000)}`);
});

test('truncation counts characters, and cuts on UTF-8 boundaries', () => {
  expect(truncateText('é'.repeat(6000), { mode: 'bytes', limit: 10_000 })).toBe(`${'é'.repeat(2500)}…1000 chars truncated…${'é'.repeat(2500)}`);
  expect(truncateText('€'.repeat(5), { mode: 'bytes', limit: 7 })).toBe('€…3 chars truncated…€');
});

test('a token budget reckons 4 bytes a token and names the tokens removed', () => {
  expect(truncateText('a'.repeat(1000), { mode: 'tokens', limit: 100 })).toBe(`${'a'.repeat(200)}…150 tokens truncated…${'a'.repeat(200)}`);
  expect(truncateText('a'.repeat(400), { mode: 'tokens', limit: 100 })).toBe('a'.repeat(400));
  expect(truncateText('abc', { mode: 'bytes', limit: 0 })).toBe('…3 chars truncated…');
});

test('format_exec_output_str puts a warning with the token and line counts before cut output', () => {
  expect(formatExecOutputStr(finished('a'.repeat(20_000)))).toBe(
    `Warning: truncated output (original token count: 5000)\nTotal output lines: 1\n\n${'a'.repeat(5000)}…10000 chars truncated…${'a'.repeat(5000)}`,
  );
  expect(formatExecOutputStr(finished('ok\n'))).toBe('ok\n');
});

test('lines are counted as Rust counts them', () => {
  expect([lineCount(''), lineCount('a'), lineCount('a\n'), lineCount('a\nb'), lineCount('\n\n')]).toEqual([0, 1, 1, 2, 2]);
});

test('over the cap, the aggregate gives stdout a third and stderr the rest', () => {
  const out = Buffer.from('o'.repeat(10));
  const err = Buffer.from('e'.repeat(10));
  expect(aggregateOutput(out, err, 30).toString()).toBe(`${'o'.repeat(10)}${'e'.repeat(10)}`);
  expect(aggregateOutput(out, err, 12).toString()).toBe(`oooo${'e'.repeat(8)}`);
  expect(aggregateOutput(out, Buffer.from('ee'), 9).toString()).toBe('oooooooee');
});
