// Reading a rollout's head in the stored-history worker: one buffer, grown past its first 64 KiB for
// a long head and read by bytes, finds the first user message however the head falls across
// reads (UTF-8 characters split between two of them included), in either history format.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { listRolloutHeads } from '../../helpers/list-rollouts.js';
import { RolloutHeads } from '../../../src/stored-reads/rollout-heads.js';
import { historyModeOf, parseRollout } from '../../../src/common/rollout/rollout-reader.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/rollouts/${name}`, import.meta.url), 'utf8');
const LEGACY = fixture('rollout-legacy-two-turns.jsonl');
const LEGACY_ID = '01a23672-ea80-7301-8e95-16757bdc1196';
const PAGINATED = fixture('rollout-paginated-two-turns.jsonl');
const PAGINATED_ID = '01a23672-eafd-79e2-a787-4ec115bd4630';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'head-reads-'));
  await mkdir(join(home, 'sessions', '2026', '12', '02'), { recursive: true });
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** The legacy sample up to and including its first user message: the first message ends the file. */
const LEGACY_FIRST_MESSAGE = (() => {
  const lines = LEGACY.split('\n');
  return lines.slice(0, lines.findIndex((line) => line.includes('"type":"user_message"')) + 1);
})();

const write = (id: string, text: string) => writeFile(join(home, 'sessions', '2026', '12', '02', `rollout-2026-12-02T11-10-30-${id}.jsonl`), text);

/** [thread id, preview, stat'ed] of each listed rollout, listed by creation time (whole heads are not stat'ed). */
const listing = (heads: RolloutHeads) => listRolloutHeads(home, heads, 'trustWhole').map(({ head, updatedAtMs }) => [head.threadId, head.preview, updatedAtMs !== null]);

test('a first message of 300 KB of multi-byte text, split across reads, is its preview, and the head is whole', async () => {
  // 3- and 4-byte characters after an odd prefix, so reads end inside characters.
  const message = `x${'✓🚀é'.repeat(34_000)}`;
  expect(Buffer.byteLength(message)).toBeGreaterThan(300_000);
  // The file ends with that message: no later line can stand in for it.
  await write(LEGACY_ID, `${LEGACY_FIRST_MESSAGE.join('\n').replace('"message":"hello"', `"message":${JSON.stringify(message)}`)}\n`);
  const heads = new RolloutHeads();
  expect(listing(heads)).toEqual([[LEGACY_ID, message, true]]);
  // Not kept (a preview past 16 Ki characters): read again, the same.
  expect(listing(heads)).toEqual([[LEGACY_ID, message, true]]);
});

test('a session_meta line past 64 KiB (long base instructions) is read whole before the first message', async () => {
  const instructions = 'i'.repeat(150_000);
  const [meta, ...rest] = LEGACY.split('\n');
  const parsed = JSON.parse(meta!) as { payload: Record<string, unknown> };
  parsed.payload.base_instructions = { text: instructions };
  await write(LEGACY_ID, [JSON.stringify(parsed), ...rest].join('\n'));
  const heads = new RolloutHeads();
  expect(listing(heads)).toEqual([[LEGACY_ID, 'hello', true]]);
  expect(listing(heads)).toEqual([[LEGACY_ID, 'hello', false]]); // kept whole: no stat
});

test('a first message line across the first read\'s end (64 KiB) is found whole, and the head is kept whole', async () => {
  const [meta, ...rest] = LEGACY_FIRST_MESSAGE;
  const parsed = JSON.parse(meta!) as { payload: Record<string, unknown> };
  const before = `${rest.slice(0, -1).join('\n')}\n`;
  // Instructions sized so that the first read ends 10 bytes past the user_message marker, before
  // the line's end: the marker is in one read, the newline in the next.
  const user = rest.at(-1)!;
  const cut = user.indexOf('"type":"user_message"') + '"type":"user_message"'.length + 10;
  parsed.payload.base_instructions = { text: '' };
  const pad = 64 * 1024 - cut - Buffer.byteLength(`${JSON.stringify(parsed)}\n${before}`);
  parsed.payload.base_instructions = { text: 'i'.repeat(pad) };
  const head = `${JSON.stringify(parsed)}\n${before}`;
  expect(Buffer.byteLength(head)).toBe(64 * 1024 - cut);
  await write(LEGACY_ID, `${head}${user}\n`);
  const heads = new RolloutHeads();
  expect(listing(heads)).toEqual([[LEGACY_ID, 'hello', true]]);
  expect(listing(heads)).toEqual([[LEGACY_ID, 'hello', false]]); // kept whole: no stat
});

test('a paginated head ends at the item_completed of its UserMessage, not at a line that only names one', async () => {
  const lines = PAGINATED.split('\n');
  const completed = lines.findIndex((line) => line.includes('"type":"item_completed"') && line.includes('"type":"UserMessage"'));
  // A line before it that names a UserMessage without completing it (an item_started).
  const started = lines[completed]!.replace('"type":"item_completed"', '"type":"item_started"');
  const upToStarted = [...lines.slice(0, completed), started].join('\n') + '\n';
  await write(PAGINATED_ID, upToStarted);
  const heads = new RolloutHeads();
  expect(listing(heads)).toEqual([[PAGINATED_ID, '', true]]);
  expect(listing(heads)).toEqual([[PAGINATED_ID, '', true]]); // not whole: stat'ed again
  await write(PAGINATED_ID, upToStarted + lines.slice(completed).join('\n'));
  expect(listing(heads)).toEqual([[PAGINATED_ID, 'hello', true]]);
  expect(listing(heads)).toEqual([[PAGINATED_ID, 'hello', false]]);
});

test('a first user message past the head\'s 4 MiB is not read: no preview, and the head is never taken as whole', async () => {
  const [meta] = LEGACY.split('\n');
  const filler = JSON.stringify({ timestamp: '2026-12-02T11:10:31.000Z', type: 'event_msg', payload: { type: 'agent_message', message: 'f'.repeat(100_000) } });
  const user = LEGACY_FIRST_MESSAGE.at(-1)!;
  const text = `${meta}\n${`${filler}\n`.repeat(42)}`;
  expect(Buffer.byteLength(text)).toBeGreaterThan(4 * 1024 * 1024);
  expect(Buffer.byteLength(text)).toBeLessThan(4 * 1024 * 1024 + 100_000);
  await write(LEGACY_ID, `${text}${user}\n`);
  const heads = new RolloutHeads();
  expect(listing(heads)).toEqual([[LEGACY_ID, '', true]]);
  expect(listing(heads)).toEqual([[LEGACY_ID, '', true]]);
});

test('base instructions are left out of a head unread, whatever they hold, and everything listed reads as from the whole line', async () => {
  const [meta, ...rest] = LEGACY_FIRST_MESSAGE;
  const tricky = `quotes \\" and "x", backslashes \\\\ and \\\\\\" é✓🚀 ${'long '.repeat(5_000)}"base_instructions":{"text":"not the key"} end\\`;
  const heads = new RolloutHeads();
  for (const [name, base] of [
    ['object', { text: tricky, provenance: { type: 'model', model: 'gpt-from-provenance' } }],
    ['string (older rollouts)', tricky],
  ] as const) {
    const parsed = JSON.parse(meta!) as { payload: Record<string, unknown> };
    parsed.payload.base_instructions = base;
    const text = `${[JSON.stringify(parsed), ...rest].join('\n')}\n`;
    await write(LEGACY_ID, text);
    const whole = parseRollout(text);
    const [listed] = listRolloutHeads(home, heads, 'readAgain');
    const m = whole.meta!;
    expect([name, listed!.head]).toEqual([
      name,
      {
        threadId: LEGACY_ID,
        path: expect.any(String),
        createdAtMs: m.createdAtMs,
        preview: whole.preview,
        modelProvider: m.modelProvider,
        cwd: m.cwd,
        cliVersion: m.cliVersion,
        source: m.source!.value,
        sourceKind: m.source!.kind,
        originator: m.originator,
        model: m.model,
        historyMode: historyModeOf(m),
      },
    ]);
    expect(listed!.head.preview).toBe('hello');
  }
});
