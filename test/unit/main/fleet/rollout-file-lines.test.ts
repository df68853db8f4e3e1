import { describe, expect, test } from 'vitest';
import { rolloutFileLines } from '../../../../src/main/commands/fleet/rollout-file-lines.js';

const ID = '01a23767-f625-79c0-a555-4847718eff08';
const PATH = `/h/sessions/2026/12/02/rollout-2026-12-02T15-38-09-${ID}.jsonl`;
const META = `{"type":"session_meta","payload":{"id":"${ID}","history_mode":"paginated"}}`;
const bytes = (text: string | Uint8Array) => Buffer.from(text);

describe('rolloutFileLines', () => {
  test('the complete lines, as written, and the torn tail left out', () => {
    expect(rolloutFileLines(PATH, bytes(`${META}\n{"a":"é"}\r\n\n{"torn`))).toEqual({
      kind: 'lines',
      threadId: ID,
      createdAtMs: Date.UTC(2026, 11, 2, 15, 38, 9),
      historyMode: 'paginated',
      text: `${META}\n{"a":"é"}\r\n\n`,
      lines: [META, '{"a":"é"}\r', ''],
      tornBytes: 6,
    });
  });

  test('the file a revert started is its thread\'s, created at its own name\'s time', () => {
    const reverted = PATH.replace('rollout-2026-12-02T15-38-09-', 'rollout-2026-12-02T16-00-01-').replace('.jsonl', '_01a23767-ffff-79c0-a555-4847718eff08.jsonl');
    expect(rolloutFileLines(reverted, bytes(`${META}\n`))).toEqual({
      kind: 'lines',
      threadId: ID,
      createdAtMs: Date.UTC(2026, 11, 2, 16, 0, 1),
      historyMode: 'paginated',
      text: `${META}\n`,
      lines: [META],
      tornBytes: 0,
    });
  });

  test('a session_meta without a history mode is legacy; a byte-order mark stays', () => {
    const legacy = `{"type":"session_meta","payload":{"id":"${ID.toUpperCase()}"}}`;
    expect(rolloutFileLines(PATH, bytes(`${legacy}\n`))).toMatchObject({ kind: 'lines', historyMode: 'legacy', lines: [legacy] });
    // A BOM makes the first line no JSON: refused, not silently dropped.
    expect(rolloutFileLines(PATH, bytes(`\uFEFF${META}\n`))).toEqual({ kind: 'refused', reason: 'its first line is not a whole session_meta record' });
  });

  test('what the store could not give back byte for byte, or is no rollout of this thread, is refused', () => {
    const refused = (reason: string) => ({ kind: 'refused', reason });
    expect(rolloutFileLines(PATH, Buffer.concat([bytes(`${META}\n{"a":"`), Buffer.from([0xff]), bytes('"}\n')]))).toEqual(refused('it is not valid UTF-8'));
    expect(rolloutFileLines(PATH, bytes(`${META}\n{"a":"\u0000"}\n`))).toEqual(refused('it holds a NUL byte, which PostgreSQL text cannot store'));
    expect(rolloutFileLines(PATH, bytes(META))).toEqual(refused('its first line is not a whole session_meta record'));
    expect(rolloutFileLines(PATH, bytes('{"type":"turn_context","payload":{}}\n'))).toEqual(refused('its first line is not a whole session_meta record'));
    expect(rolloutFileLines(PATH, bytes(META.replace(ID, '01a23767-0000-79c0-a555-4847718eff08') + '\n'))).toEqual(refused('its session_meta names another thread'));
    expect(rolloutFileLines(`/h/sessions/2026/13/02/rollout-2026-13-02T15-38-09-${ID}.jsonl`, bytes(`${META}\n`))).toEqual(refused('its name is not a rollout name with a real time'));
  });
});
