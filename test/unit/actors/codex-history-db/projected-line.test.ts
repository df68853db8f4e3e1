// The error of a failed turn as the reference projects it, for each `codex_error_info`
// thread-host writes (test/fixtures/codex-history-db/error-info.json, recorded from the
// binary), and the values it never writes, which are refused rather than guessed.
import { describe, expect, test } from 'vitest';
import { projectLine } from '../../../../src/actors/codex-history-db/projected-line.js';
import { fixtureText } from '../../../helpers/reference-history-db.js';

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
