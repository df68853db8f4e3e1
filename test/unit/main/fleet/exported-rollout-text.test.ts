// What `fleet export` writes of a thread's rows: as stored, but for the rows a fork or revert on
// the store leaves, whose ordinals it makes rise through the file for the reference's reader.
import { describe, expect, test } from 'vitest';
import { exportedRolloutText } from '../../../../src/main/commands/fleet/exported-rollout-text.js';

const T = '"timestamp":"2026-12-05T06:00:00.000Z"';
const meta = (ordinal: number, id: string) => `{${T},"ordinal":${ordinal},"type":"session_meta","payload":{"id":"${id}"}}`;
const line = (ordinal: number, text: string) => `{${T},"ordinal":${ordinal},"type":"event_msg","payload":{"type":"agent_message","message":"${text}"}}`;
const text = (...lines: string[]) => lines.map((each) => `${each}\n`).join('');

describe('exportedRolloutText', () => {
  test('a thread started here or imported is written as stored, legacy or paginated', () => {
    const paginated = text(meta(0, 'a'), line(1, 'one'), line(2, 'two'));
    const legacy = text(`{${T},"type":"session_meta","payload":{"id":"a"}}`, `{${T},"type":"event_msg","payload":{}}`);
    expect([exportedRolloutText(paginated), exportedRolloutText(legacy), exportedRolloutText('')]).toEqual([paginated, legacy, '']);
  });

  test('a fork: its session_meta at ordinal 0, the source\'s session_meta gone, the ordinals rising with a gap', () => {
    const stored = text(meta(3, 'fork'), meta(0, 'source'), line(1, 'one'), line(2, 'two'), line(4, 'on the fork'));
    expect(exportedRolloutText(stored)).toBe(text(meta(0, 'fork'), line(1, 'one'), line(2, 'two'), line(4, 'on the fork')));
  });

  test('a fork of a fork: every kept session_meta goes', () => {
    const stored = text(meta(5, 'second'), meta(3, 'first'), meta(0, 'source'), line(1, 'one'), line(2, 'two'), line(4, 'on the first'), line(6, 'on the second'));
    expect(exportedRolloutText(stored)).toBe(text(meta(0, 'second'), line(1, 'one'), line(2, 'two'), line(4, 'on the first'), line(6, 'on the second')));
  });

  test('rows of any other shape are written as stored', () => {
    const regressed = text(meta(3, 'fork'), line(2, 'two'), line(1, 'one'));
    const unnumbered = text(meta(3, 'fork'), `{${T},"type":"event_msg","payload":{}}`);
    expect([exportedRolloutText(regressed), exportedRolloutText(unnumbered)]).toEqual([regressed, unnumbered]);
  });
});
