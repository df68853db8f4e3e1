// ExecSession: output piles up between reads (head and tail kept past the cap, with the
// reference's omission marker), a read waits for its deadline or the end, an interrupt leaves
// the output for the next read, and the end is reported exactly once.
import { expect, test } from 'vitest';
import type { CommandExecutionItem } from '../../../../../src/common/wire-types.js';
import { ExecSession, SESSION_OUTPUT_MAX_BYTES, type SessionEnd } from '../../../../../src/main/tools/shell/exec-session.js';
import { ExecSessions, MAX_SESSIONS_PER_THREAD } from '../../../../../src/main/tools/shell/exec-sessions.js';
import { decodeWriteStdinArgs } from '../../../../../src/main/tools/shell/write-stdin-args.js';

const item = { id: 'call-1' } as CommandExecutionItem;
const session = (id = 1000, thread = 't1', lastUsed = 0) => new ExecSession(id, thread, 'turn-1', item, false, lastUsed, () => item);
const end: SessionEnd = { result: { kind: 'refused', reason: 'interrupted', message: 'gone' }, durationMs: 5 };
const clock = () => performance.now();

test('a read returns what came since the last one, after its deadline', async () => {
  const s = session();
  s.append(Buffer.from('one\n'));
  const started = performance.now();
  const first = await s.read(started + 30, clock, new AbortController().signal);
  expect(performance.now() - started).toBeGreaterThanOrEqual(29);
  expect(first).toEqual({ output: Buffer.from('one\n'), end: null });
  s.append(Buffer.from('two\n'));
  expect(await s.read(0, clock, new AbortController().signal)).toEqual({ output: Buffer.from('two\n'), end: null });
});

test('the end cuts a read short, and a reader that saw it reports it, once', async () => {
  const s = session();
  const reading = s.read(performance.now() + 60_000, clock, new AbortController().signal);
  s.append(Buffer.from('last\n'));
  // A reader is there: the end is not the finisher's to report.
  expect(s.finish(end)).toBe(false);
  expect(await reading).toEqual({ output: Buffer.from('last\n'), end });
  expect(s.claimReport()).toBe(true);
  expect(s.claimReport()).toBe(false);
  expect([s.ended, s.end]).toEqual([true, end]);
});

test('an end nobody reads is the finisher to report', () => {
  const s = session();
  expect(s.claimReport()).toBe(false);
  expect(s.finish(end)).toBe(true);
  expect(s.claimReport()).toBe(false);
});

test('an interrupted read gives nothing and leaves the output for the next', async () => {
  const s = session();
  s.append(Buffer.from('kept\n'));
  const abort = new AbortController();
  const reading = s.read(performance.now() + 60_000, clock, abort.signal);
  abort.abort();
  expect(await reading).toBe('interrupted');
  expect(await s.read(0, clock, new AbortController().signal)).toEqual({ output: Buffer.from('kept\n'), end: null });
});

test('past the cap the first and last halves are kept around the omission marker', async () => {
  const s = session();
  const half = SESSION_OUTPUT_MAX_BYTES / 2;
  s.append(Buffer.alloc(half, 'h'));
  for (let i = 0; i < 4; i += 1) s.append(Buffer.alloc(half / 2, String(i)));
  const read = await s.read(0, clock, new AbortController().signal);
  if (read === 'interrupted') throw new Error('not interrupted');
  expect(read.output.toString()).toBe(`${'h'.repeat(half)}\n... ${half} bytes omitted ...\n${'2'.repeat(half / 2)}${'3'.repeat(half / 2)}`);
  s.append(Buffer.from('x'));
  expect(await s.read(0, clock, new AbortController().signal)).toEqual({ output: Buffer.from('x'), end: null });
});

test('a thread keeps 64 sessions: one more ends an ended one first, else the least recently used, never the last 8 used', () => {
  const sessions = new ExecSessions();
  const made = Array.from({ length: MAX_SESSIONS_PER_THREAD }, (_, i) => session(2000 + i, 't1', i));
  for (const s of made) expect(sessions.add(s)).toBe(null);
  made[60]!.finish(end);
  made[10]!.finish(end);
  // 60 is among the 8 used last; 10 is the ended one that can go.
  expect(sessions.add(session(3000, 't1', 100))?.id).toBe(2010);
  expect(sessions.get('t1', 2010)).toBe(undefined);
  expect(made[10]!.signal.aborted).toBe(true);
  // None ended outside the 8 used last: the least recently used goes.
  expect(sessions.add(session(3001, 't1', 101))?.id).toBe(2000);
  expect(sessions.countOf('t1')).toBe(MAX_SESSIONS_PER_THREAD);
  expect(sessions.add(session(4000, 't2', 0))).toBe(null);
  sessions.endThread('t1');
  expect([sessions.countOf('t1'), sessions.countOf('t2'), made[63]!.signal.aborted]).toEqual([0, 1, true]);
});

test("write_stdin's arguments decode as the reference's, with its defaults and serde's messages", () => {
  expect(decodeWriteStdinArgs('{"session_id":7}')).toEqual({ ok: true, args: { sessionId: 7, chars: '', yieldTimeMs: 250, maxOutputTokens: null } });
  expect(decodeWriteStdinArgs('{"session_id":7,"chars":"a\\n","yield_time_ms":900,"max_output_tokens":50}')).toEqual({
    ok: true,
    args: { sessionId: 7, chars: 'a\n', yieldTimeMs: 900, maxOutputTokens: 50 },
  });
  expect(decodeWriteStdinArgs('{}')).toEqual({ ok: false, message: 'failed to parse function arguments: missing field `session_id` at line 1 column 2' });
  expect(decodeWriteStdinArgs('{"session_id":"7"}')).toEqual({ ok: false, message: 'failed to parse function arguments: invalid type: string "7", expected i32 at line 1 column 18' });
  expect(decodeWriteStdinArgs('{"session_id":7,"chars":3}')).toEqual({ ok: false, message: 'failed to parse function arguments: invalid type: integer `3`, expected a string at line 1 column 26' });
});
