// The note a user's own command (thread/shellCommand) leaves for the model. The expected texts
// are codex 0.171.0's, captured for the same outputs: a long output is cut in the middle to the
// model's 10,000-byte budget behind the reference's warning; a short one is given whole.
import { describe, expect, test } from 'vitest';
import { userShellNote } from '../../../../src/actors/turn/user-shell-turn.js';
import type { UserShellCommand } from '../../../../src/common/actor-messages.js';

const note = (command: string, aggregatedOutput: string): string =>
  userShellNote({ command, item: { exitCode: 0, durationMs: 31.7, aggregatedOutput } as UserShellCommand['item'] });

const wrapped = (command: string, output: string): string =>
  `<user_shell_command>\n<command>\n${command}\n</command>\n<result>\nExit code: 0\nDuration: 0.0317 seconds\nOutput:\n${output}\n</result>\n</user_shell_command>`;

describe('userShellNote', () => {
  test('an output within the budget is given whole', () => {
    const output = Array.from({ length: 300 }, (_, index) => `${index + 1}\n`).join('');
    expect(note('seq 1 300', output)).toBe(wrapped('seq 1 300', output));
  });

  test('one long line is cut in the middle behind the warning and the line count', () => {
    const output = `${'x'.repeat(50_000)}\n`;
    const expected = `Warning: truncated output (original token count: 12501)\nTotal output lines: 1\n\n${'x'.repeat(5000)}…40001 chars truncated…${'x'.repeat(4999)}\n`;
    expect(note('python3 -c "print(\\"x\\"*50000)"', output)).toBe(wrapped('python3 -c "print(\\"x\\"*50000)"', expected));
  });

  test('many lines keep the head and the tail, counted in characters, not lines', () => {
    const output = Array.from({ length: 30_000 }, (_, index) => `${index + 1}\n`).join('');
    const text = note('seq 1 30000', output);
    const body = text.slice(text.indexOf('Output:\n') + 'Output:\n'.length, text.indexOf('\n</result>'));
    expect(body).toBe(`Warning: truncated output (original token count: 42224)\nTotal output lines: 30000\n\n${output.slice(0, 5000)}…158894 chars truncated…${output.slice(-5000)}`);
  });

  test('multi-byte output is cut on character boundaries', () => {
    const output = 'é'.repeat(9000);
    expect(note('printf', output)).toBe(
      wrapped('printf', `Warning: truncated output (original token count: 4500)\nTotal output lines: 1\n\n${'é'.repeat(2500)}…4000 chars truncated…${'é'.repeat(2500)}`),
    );
  });
});
