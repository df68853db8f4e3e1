import { describe, expect, test } from 'vitest';
import { historyViolations, lockViolations, type HistoryRead, type ReadTurn, type SentTurn } from '../../../bench/lib/handoff-verdict.js';

const T1 = 'thread-1';
const T2 = 'thread-2';

const acked = (threadId: string, turnId: string, token: string, process: string): SentTurn => ({ threadId, token, turnId, process, outcome: 'acknowledged', status: 'completed' });
const cut = (threadId: string, turnId: string | null, token: string, process: string): SentTurn => ({ threadId, token, turnId, process, outcome: 'cut', status: null });
const readTurn = (id: string, status: string, token: string | null): ReadTurn => ({ id, status, texts: token === null ? [] : [`handoff ${token}`] });
const read = (reader: string, threadId: string, turns: ReadTurn[]): HistoryRead => ({ reader, threadId, turns, error: null });

const SENT: SentTurn[] = [
  acked(T1, 'turn-a', '[hx 0.1 1]', 'p0.1 thread-host pid 10'),
  acked(T1, 'turn-b', '[hx 1.1 1]', 'p1.1 codex pid 11'),
  acked(T2, 'turn-c', '[hx 0.1 2]', 'p0.1 thread-host pid 10'),
];
const WHOLE_T1 = [readTurn('turn-a', 'completed', '[hx 0.1 1]'), readTurn('turn-b', 'completed', '[hx 1.1 1]')];
const WHOLE_T2 = [readTurn('turn-c', 'completed', '[hx 0.1 2]')];

describe('history verdict', () => {
  test('every acknowledged turn once, as every implementation reads it, passes', () => {
    const reads = ['thread-host', 'codex'].flatMap((reader) => [read(reader, T1, WHOLE_T1), read(reader, T2, WHOLE_T2)]);
    expect(historyViolations(SENT, reads)).toEqual([]);
  });

  test('a turn is found by its token when a reader gives it another id', () => {
    expect(historyViolations(SENT, [read('codex', T2, [readTurn('other-id', 'completed', '[hx 0.1 2]')])])).toEqual([]);
  });

  test('a missing acknowledged turn fails, naming thread, turn, process and reader', () => {
    expect(historyViolations(SENT, [read('codex', T1, [WHOLE_T1[0]!])])).toEqual([
      {
        kind: 'missing',
        threadId: T1,
        turn: 'turn-b',
        processes: ['p1.1 codex pid 11'],
        message: 'thread thread-1: acknowledged turn turn-b (p1.1 codex pid 11) missing as read by codex',
      },
    ]);
  });

  test('a duplicated turn fails', () => {
    expect(historyViolations(SENT, [read('thread-host', T1, [...WHOLE_T1, readTurn('turn-a', 'completed', '[hx 0.1 1]')])])).toEqual([
      {
        kind: 'duplicate',
        threadId: T1,
        turn: 'turn-a',
        processes: ['p0.1 thread-host pid 10'],
        message: 'thread thread-1: acknowledged turn turn-a (p0.1 thread-host pid 10) appears 2 times as read by thread-host',
      },
    ]);
  });

  test('an acknowledged turn read back with another status fails', () => {
    expect(historyViolations(SENT, [read('codex', T2, [readTurn('turn-c', 'interrupted', '[hx 0.1 2]')])])).toEqual([
      {
        kind: 'wrongStatus',
        threadId: T2,
        turn: 'turn-c',
        processes: ['p0.1 thread-host pid 10'],
        message: 'thread thread-2: acknowledged turn turn-c (p0.1 thread-host pid 10) reads back interrupted, expected completed as read by codex',
      },
    ]);
  });

  test('a cut turn may be absent, interrupted with or without its user message, or completed (written, never acknowledged), but not failed', () => {
    const sent = [...SENT, cut(T2, 'turn-d', '[hx 0.1 3]', 'p0.1 thread-host pid 10')];
    expect(historyViolations(sent, [read('r', T2, WHOLE_T2)])).toEqual([]);
    expect(historyViolations(sent, [read('r', T2, [...WHOLE_T2, readTurn('turn-d', 'interrupted', '[hx 0.1 3]')])])).toEqual([]);
    expect(historyViolations(sent, [read('r', T2, [...WHOLE_T2, readTurn('turn-x', 'interrupted', null)])])).toEqual([]);
    expect(historyViolations(sent, [read('r', T2, [...WHOLE_T2, readTurn('turn-d', 'completed', '[hx 0.1 3]')])])).toEqual([]);
    expect(historyViolations(sent, [read('r', T2, [...WHOLE_T2, readTurn('turn-d', 'failed', '[hx 0.1 3]')])])).toEqual([
      {
        kind: 'wrongStatus',
        threadId: T2,
        turn: 'turn-d',
        processes: ['p0.1 thread-host pid 10'],
        message: 'thread thread-2: cut turn turn-d (p0.1 thread-host pid 10) reads back failed, expected interrupted or completed as read by r',
      },
    ]);
  });

  test('an untokened interrupted turn is allowed once per unmatched cut turn, no more', () => {
    const sent = [...SENT, cut(T2, null, '[hx 0.1 3]', 'p0.1 thread-host pid 10')];
    const twice = [...WHOLE_T2, readTurn('turn-x', 'interrupted', null), readTurn('turn-y', 'interrupted', null)];
    expect(historyViolations(sent, [read('r', T2, twice)])).toEqual([
      { kind: 'unexpected', threadId: T2, turn: 'turn-y', processes: [], message: 'thread thread-2: turn turn-y (interrupted) was never sent as read by r' },
    ]);
  });

  test('a turn nobody sent fails, and an unreadable rollout fails', () => {
    const reads: HistoryRead[] = [read('codex', T2, [...WHOLE_T2, readTurn('turn-z', 'interrupted', null)]), { reader: 'codex', threadId: T1, turns: null, error: 'thread/read: failed to parse rollout' }];
    expect(historyViolations(SENT, reads)).toEqual([
      { kind: 'unexpected', threadId: T2, turn: 'turn-z', processes: [], message: 'thread thread-2: turn turn-z (interrupted) was never sent as read by codex' },
      { kind: 'unreadable', threadId: T1, turn: null, processes: [], message: 'thread thread-1: rollout unreadable as read by codex: thread/read: failed to parse rollout' },
    ]);
  });
});

describe('lock-table verdict', () => {
  const processOf = (pid: number): string => `p${pid - 10}.1 pid ${pid}`;

  test('one holder per thread in every sample passes', () => {
    const samples = [
      { at: 0, holders: [{ threadId: T1, pid: 10 }, { threadId: T2, pid: 11 }] },
      { at: 10, holders: [{ threadId: T1, pid: 11 }] },
    ];
    expect(lockViolations(samples, processOf)).toEqual([]);
  });

  test('two processes holding one thread in a sample fail, once per stretch of samples', () => {
    const samples = [
      { at: 0, holders: [{ threadId: T1, pid: 10 }] },
      { at: 10.25, holders: [{ threadId: T1, pid: 11 }, { threadId: T1, pid: 10 }, { threadId: T2, pid: 12 }] },
      { at: 20, holders: [{ threadId: T1, pid: 10 }, { threadId: T1, pid: 11 }] },
      { at: 30, holders: [{ threadId: T1, pid: 11 }] },
    ];
    expect(lockViolations(samples, processOf)).toEqual([
      {
        kind: 'twoWriters',
        threadId: T1,
        turn: null,
        processes: ['p0.1 pid 10', 'p1.1 pid 11'],
        message: 'thread thread-1: writer lock held at once by p0.1 pid 10 and p1.1 pid 11 (kernel lock table at 10.3 ms, 2 sample(s))',
      },
    ]);
  });
});
