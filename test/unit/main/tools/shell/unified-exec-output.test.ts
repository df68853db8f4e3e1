// The model's text for a chunk of a command's output, as codex 0.171.0 words it (probed): the
// original token count of the raw bytes, the default budget in bytes, `max_output_tokens` as a
// budget in tokens.
import { expect, test } from 'vitest';
import { unifiedExecOutputText } from '../../../../../src/main/tools/shell/unified-exec-output.js';

const withoutChunkId = (text: string) => text.replace(/^Chunk ID: [0-9a-f]{6}\n/, 'Chunk ID: <hex>\n');

test('a short output whole, with its exit code or its session', () => {
  expect(withoutChunkId(unifiedExecOutputText(Buffer.from('hi\n'), 12.34, { kind: 'exited', exitCode: 3 }, null))).toBe(
    'Chunk ID: <hex>\nWall time: 0.0123 seconds\nProcess exited with code 3\nOriginal token count: 1\nOutput:\nhi\n',
  );
  expect(withoutChunkId(unifiedExecOutputText(Buffer.from(''), 1500, { kind: 'running', sessionId: 4242 }, null))).toBe(
    'Chunk ID: <hex>\nWall time: 1.5000 seconds\nProcess running with session ID 4242\nOriginal token count: 0\nOutput:\n',
  );
});

test('bytes that are no UTF-8 count one each in the original count, three each (as U+FFFD) in the warning', () => {
  expect(withoutChunkId(unifiedExecOutputText(Buffer.alloc(8, 0xff), 0, { kind: 'exited', exitCode: 0 }, null))).toBe(
    `Chunk ID: <hex>\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 2\nOutput:\n${'\ufffd'.repeat(8)}`,
  );
  const cut = unifiedExecOutputText(Buffer.alloc(12_000, 0xff), 0, { kind: 'exited', exitCode: 0 }, null);
  expect(cut.split('\n').slice(3, 8)).toEqual(['Original token count: 3000', 'Output:', 'Warning: truncated output (original token count: 9000)', 'Total output lines: 1', '']);
  expect(cut.match(/…[^…]*…/g)).toEqual(['…8668 chars truncated…']);
});

test('max_output_tokens is a budget of tokens (4 bytes each), with the tokens cut in the marker', () => {
  const output = Buffer.concat([Buffer.alloc(4, 0xff), Buffer.alloc(300, 'x')]);
  expect(withoutChunkId(unifiedExecOutputText(output, 0, { kind: 'exited', exitCode: 0 }, 10))).toBe(
    'Chunk ID: <hex>\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 76\nOutput:\n' +
      'Warning: truncated output (original token count: 78)\nTotal output lines: 1\n\n' +
      `${'\ufffd'.repeat(4)}${'x'.repeat(8)}…68 tokens truncated…${'x'.repeat(20)}`,
  );
  const lines = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `${i + 1}\n`).join(''));
  const text = unifiedExecOutputText(lines, 0, { kind: 'exited', exitCode: 0 }, 30);
  expect(text.split('Output:\n')[1]).toBe(
    'Warning: truncated output (original token count: 27224)\nTotal output lines: 20000\n\n' +
      `${Array.from({ length: 23 }, (_, i) => `${i + 1}\n`).join('')}…27194 tokens truncated…${Array.from({ length: 10 }, (_, i) => `${19_991 + i}\n`).join('')}`,
  );
});

test('without max_output_tokens the budget is 10000 bytes, with the characters cut in the marker', () => {
  const text = unifiedExecOutputText(Buffer.alloc(50_000, 'x'), 0, { kind: 'exited', exitCode: 2 }, null);
  expect(text.split('Output:\n')[1]).toBe(`Warning: truncated output (original token count: 12500)\nTotal output lines: 1\n\n${'x'.repeat(5000)}…40000 chars truncated…${'x'.repeat(5000)}`);
});
