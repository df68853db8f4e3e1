// The error of a failed turn as the reference projects it, for each `codex_error_info`
// thread-host writes (test/fixtures/codex-history-db/error-info.json, recorded from the
// binary), and the values it never writes, which are refused rather than guessed; and a fork's
// first line.
import { describe, expect, test } from 'vitest';
import { projectLine } from '../../../../../../src/actors/history/files/codex-history-db/projected-line.js';
import { projectTail } from '../../../../../../src/actors/history/files/codex-history-db/rollout-tail.js';
import { fixtureText } from '../../../../../helpers/reference-history-db.js';

const RECORDED = (JSON.parse(fixtureText('error-info.json')) as { errorJsonByCodexErrorInfo: Record<string, unknown> }).errorJsonByCodexErrorInfo;
const MESSAGE = 'stream disconnected before completion: boom';

function failedTurnLine(info: unknown): string {
  return JSON.stringify({
    timestamp: '2026-12-04T23:47:25.009Z',
    ordinal: 19,
    type: 'event_msg',
    payload: {
      type: 'task_complete',
      root_turn_id: 'turn-2',
      turn_id: 'turn-2',
      last_agent_message: null,
      error: { message: MESSAGE, codex_error_info: info },
      started_at: 1796428044,
      completed_at: 1796428045,
      duration_ms: 92,
    },
  });
}

describe('a failed turn', () => {
  test.each(Object.keys(RECORDED).filter((value) => value !== 'no_such_variant'))('with codex_error_info %s projects the reference\'s error_json', (value) => {
    const info = value === 'null' ? null : value;
    expect(projectLine(failedTurnLine(info))).toEqual({
      kind: 'line',
      line: {
        ordinal: 19,
        turns: [{ turnId: 'turn-2', status: 'failed', errorJson: JSON.stringify(RECORDED[value]), startedAt: 1796428044, completedAt: 1796428045, durationMs: 92, rootTurnId: 'turn-2' }],
        items: [],
      },
    });
  });

  test('with a codex_error_info thread-host never writes is refused (the reference reads it as other)', () => {
    expect(RECORDED.no_such_variant).toEqual({ message: MESSAGE, codexErrorInfo: 'other', additionalDetails: null, misalignment: null });
    expect(projectLine(failedTurnLine('no_such_variant'))).toEqual({ kind: 'refused', reason: 'a turn error thread-host does not write' });
  });
});

describe('records thread-host does not write', () => {
  test.each([
    ['{"timestamp":"t","ordinal":3,"type":"world_state","payload":{}}', 'a world_state record'],
    ['{"timestamp":"t","ordinal":3,"type":"event_msg","payload":{"type":"thread_settings_applied"}}', 'an event_msg/thread_settings_applied record'],
    ['{"timestamp":"t","ordinal":3,"type":"event_msg","payload":{"type":"item_completed","turn_id":"t","item":{"type":"Reasoning","id":"r"},"started_at_ms":1,"completed_at_ms":2}}', 'an item of type Reasoning'],
    ['{"timestamp":"t","type":"turn_context","payload":{}}', 'a line without an ordinal'],
    ['{"timestamp":"t","ordinal":3,', 'a line that is not JSON'],
  ])('%s is refused', (line, reason) => {
    expect(projectLine(line)).toEqual({ kind: 'refused', reason });
  });
});

// A fork's file (thread/fork) starts at its base's end ordinal: the reference projects only the
// fork's own lines, from that ordinal on (recorded from the binary: a fork's first turn row has
// the ordinal of its line in the fork's file, and its byte offset there).
describe('a fork\'s first line', () => {
  const forkMeta = (ordinal: number, end: number) =>
    `{"timestamp":"t","ordinal":${ordinal},"type":"session_meta","payload":{"id":"f","history_base":{"thread_id":"s","end_ordinal_exclusive":${end},"end_byte_offset":900}}}`;
  const turnContext = (ordinal: number) => `{"timestamp":"t","ordinal":${ordinal},"type":"turn_context","payload":{}}`;

  test('opens the file at its base\'s end ordinal', () => {
    const bytes = Buffer.from(`${forkMeta(14, 14)}\n${turnContext(15)}\n`);
    const first = Buffer.byteLength(forkMeta(14, 14)) + 1;
    expect(projectTail(bytes, { offset: 0, ordinal: 0 })).toEqual({
      kind: 'tail',
      lines: [
        { ordinal: 14, turns: [], items: [], opensFork: true, startOffset: 0, endOffset: first },
        { ordinal: 15, turns: [], items: [], startOffset: first, endOffset: bytes.length },
      ],
      next: { offset: bytes.length, ordinal: 16 },
    });
  });

  test('is refused when its base does not end where it starts, or when it is not first', () => {
    expect(projectLine(forkMeta(14, 13))).toEqual({ kind: 'refused', reason: 'a history base that does not end where the fork starts' });
    const late = Buffer.from(`${turnContext(0)}\n${forkMeta(14, 14)}\n`);
    expect(projectTail(late, { offset: 0, ordinal: 0 })).toEqual({ kind: 'refused', reason: `ordinal 14 at byte ${Buffer.byteLength(turnContext(0)) + 1} where 1 was expected` });
  });

  test('of a sub-agent is still refused', () => {
    const line = '{"timestamp":"t","ordinal":3,"type":"session_meta","payload":{"subagent_history_start_ordinal":3}}';
    expect(projectLine(line)).toEqual({ kind: 'refused', reason: 'a session_meta with a sub-agent history start' });
  });
});
