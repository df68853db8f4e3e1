// The line-parser worker, driven by the main side as the host drives it: a large line reads
// exactly as it reads on the main thread, its bytes are transferred rather than copied, and a
// worker that dies or overruns its deadline costs only the line it had (answered from its
// head) before a new worker takes the next one.
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import type { Clock } from '../../../../src/common/clock.js';
import { parseLineBytes } from '../../../../src/common/line-outcome.js';
import { LargeLineParser, type LargeLineOutcome } from '../../../../src/main/input/large-line-parser.js';
import { comparable, jsonLine } from '../../../helpers/json-lines.js';

const WORKER = fileURLToPath(new URL('../../../../dist/workers/line-parser.js', import.meta.url));
const FAULTY = fileURLToPath(new URL('../../../fixtures/line-parser/faulty-line-parser.mjs', import.meta.url));
const PAD = ' '.repeat(70_000);

/** A clock whose timers fire only when the test says so. */
class ManualClock implements Clock {
  readonly timers = new Map<number, () => void>();
  #next = 1;
  now = () => 0;
  setTimeout = (callback: () => void): number => {
    this.timers.set(this.#next, callback);
    return this.#next++;
  };
  clearTimeout = (handle: unknown): void => void this.timers.delete(handle as number);
  fireAll(): void {
    for (const [handle, callback] of [...this.timers]) {
      this.timers.delete(handle);
      callback();
    }
  }
}

let parser: LargeLineParser | null = null;
afterEach(async () => {
  await parser?.close();
  parser = null;
});

/** What the parser logged, as [level, message, fields]. */
let logged: unknown[][] = [];

function start(filename = WORKER, clock: Clock = new ManualClock()): LargeLineParser {
  logged = [];
  parser = new LargeLineParser({ filename, deadlineMs: 1_000, clock, log: (...entry: unknown[]) => void logged.push(entry) });
  return parser;
}

/** A line's bytes as the splitter hands them over: segments that own their buffers. */
function segmentsOf(text: string | Buffer, pieces = 3): Uint8Array[] {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const size = Math.ceil(bytes.length / pieces);
  const segments: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) segments.push(new Uint8Array(bytes.subarray(at, at + size)));
  return segments;
}

const comparableLarge = (outcome: LargeLineOutcome): unknown => (outcome.kind === 'failed' ? outcome : comparable(outcome));

/** What the main thread reads from the same line's bytes (a line arrives as bytes on either path). */
const onMainThread = (line: string): unknown => comparable(parseLineBytes(Buffer.from(line)));

describe('LargeLineParser', () => {
  test('a huge request with duplicated keys, big integers, 1.0 and nesting past the limit reads as on the main thread', async () => {
    const lines = [
      `{"id":1,"id":2,"method":"turn/start","params":{"input":[{"type":"text","text":"${'é\\n'.repeat(40_000)}"}]},"method":"x","params":{}}`,
      `{"id":9223372036854775807,"method":"thread/read","params":{"threadId":1.0,"big":340282366920938463463374607431768211456,"pad":"${'x'.repeat(70_000)}"}}`,
      `{"id":3,"method":"thread/loaded/list","params":${'['.repeat(128)}${']'.repeat(128)},"pad":"${'y'.repeat(70_000)}"}`,
      `{"id":4,"method":"thread/loaded/list","params":{"limit":1e400,"__proto__":[-0,0.10,1E2]}}${PAD}`,
      `{"id":5,"method":"thread/loaded/list","params":{"x":[${'0,'.repeat(1_000_000)}0]}}`,
      `{"id":6,"method":"thread/loaded/list","params":{"bad":"\\ud800"}}${PAD}`,
      `${PAD}{"id":7,`,
    ];
    const lineParser = start();
    const outcomes = await Promise.all(lines.map((line) => lineParser.parse(segmentsOf(line))));
    expect(outcomes.map(comparableLarge)).toEqual(lines.map(onMainThread));
  });

  test('any line padded past the threshold reads as on the main thread (property)', async () => {
    const lineParser = start();
    await fc.assert(
      fc.asyncProperty(jsonLine, async (line) => {
        const padded = line + PAD;
        expect(comparableLarge(await lineParser.parse(segmentsOf(padded)))).toEqual(onMainThread(padded));
      }),
      { numRuns: 200 },
    );
  });

  test('bytes that are not UTF-8 read as invalidUtf8, as the splitter reports them', async () => {
    const bytes = Buffer.concat([Buffer.from(`{"id":1,"method":"thread/loaded/list","params":{"p":"${'z'.repeat(70_000)}`), Buffer.from([0xc3, 0x28]), Buffer.from('"}}')]);
    expect(await start().parse(segmentsOf(bytes))).toEqual({ kind: 'invalidUtf8' });
  });

  test('the worker starts on the first line, and the segments are transferred, not copied', async () => {
    const lineParser = start();
    expect(lineParser.running).toBe(false);
    const segments = segmentsOf(`{"id":1}${PAD}`);
    const parsing = lineParser.parse(segments);
    expect(segments.map((segment) => segment.byteLength)).toEqual([0, 0, 0]);
    expect(comparableLarge(await parsing)).toEqual(onMainThread(`{"id":1}${PAD}`));
    expect(lineParser.running).toBe(true);
  });

  test('a worker that exits costs only its line, answered from its head; the next line gets a new worker', async () => {
    const lineParser = start(FAULTY);
    const head = `exit{"id":"e","method":"thread/loaded/list"`;
    const [failed, next] = await Promise.all([lineParser.parse(segmentsOf(head + PAD)), lineParser.parse(segmentsOf(`{"id":2}${PAD}`))]);
    expect(failed).toEqual({ kind: 'failed', reason: 'workerExited', head: Buffer.from(head + PAD.slice(0, 4096 - head.length)), bytes: head.length + PAD.length });
    expect(comparableLarge(next)).toEqual(onMainThread(`{"id":2}${PAD}`));
    // The log names the line's size, taken before its bytes were transferred away.
    expect(logged).toEqual([['error', 'line-parser worker exited with a job in flight', { code: 3, bytes: head.length + PAD.length }]]);
  });

  test('a line past the deadline is given up and the worker replaced; lines queued behind it still parse', async () => {
    const clock = new ManualClock();
    const lineParser = start(FAULTY, clock);
    const hung = lineParser.parse(segmentsOf(`hang${PAD}`));
    const queued = lineParser.parse(segmentsOf(`[1.0]${PAD}`));
    expect(clock.timers.size).toBe(1);
    clock.fireAll();
    expect(await hung).toEqual({ kind: 'failed', reason: 'deadline', head: Buffer.from(`hang${PAD}`.slice(0, 4096)), bytes: 4 + PAD.length });
    expect(logged).toEqual([['error', 'line-parser worker overran its deadline; replacing it', { deadlineMs: 1_000, bytes: 4 + PAD.length }]]);
    expect(comparableLarge(await queued)).toEqual(onMainThread(`[1.0]${PAD}`));
    expect(clock.timers.size).toBe(0);
  });

  test('close fails what is still waiting, and parses after it fail at once', async () => {
    const lineParser = start(FAULTY);
    const hung = lineParser.parse(segmentsOf(`hang${PAD}`, 1));
    const waiting = lineParser.parse(segmentsOf(`{"id":1}${PAD}`, 1));
    await lineParser.close();
    const after = lineParser.parse(segmentsOf(`{"id":2}${PAD}`, 1));
    expect((await Promise.all([hung, waiting, after])).map((outcome) => outcome.kind === 'failed' && outcome.reason)).toEqual(['workerExited', 'workerExited', 'workerExited']);
    expect(lineParser.running).toBe(false);
  });
});
