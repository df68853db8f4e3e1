// The thread-list bench's seeding (bench/lib/rollout-copies.ts): copies of one rollout stand
// for threads created at distinct times, as a real home's are. thread/list orders and pages by
// whole seconds, so two copies in one second would make its pages ambiguous (the failure
// "copies share creation times" at 50,000 copies came from a time formula that repeated).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { COPY_SPAN_MS, plannedCopies, uuidv7Ms, writeRolloutCopies } from '../../../bench/lib/rollout-copies.js';
import { rolloutPathFor } from '../../../src/common/rollout/rollout-path.js';

const SOURCE_MS = Date.UTC(2026, 11, 1, 9, 0, 0);

let home: string | null = null;
afterEach(() => {
  if (home !== null) rmSync(home, { recursive: true, force: true });
  home = null;
});

test('copies are created in seconds of their own, oldest first, before the source, each id a UUIDv7 of its time', () => {
  for (const count of [1, 25, 60_000]) {
    const copies = plannedCopies(count, SOURCE_MS);
    const seconds = copies.map((copy) => Math.floor(copy.createdAtMs / 1000));
    expect({
      count: copies.length,
      distinctSeconds: new Set(seconds).size,
      ascending: seconds.every((second, i) => i === 0 || second > seconds[i - 1]!),
      beforeSource: seconds.at(-1)! < SOURCE_MS / 1000,
      idsCarryTheirTime: copies.every((copy) => uuidv7Ms(copy.id) === copy.createdAtMs && /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(copy.id)),
      distinctIds: new Set(copies.map((copy) => copy.id)).size,
    }).toEqual({ count, distinctSeconds: count, ascending: true, beforeSource: true, idsCarryTheirTime: true, distinctIds: count });
  }
  // Spread over the span, as a home that grew over weeks.
  const spread = plannedCopies(1_000, SOURCE_MS);
  expect(SOURCE_MS - spread[0]!.createdAtMs).toBeGreaterThan(COPY_SPAN_MS - 3_000_000);
  expect(SOURCE_MS - spread[0]!.createdAtMs).toBeLessThanOrEqual(COPY_SPAN_MS);
});

test('a written copy is the source with its id and creation time replaced, at the path the reference gives it', () => {
  home = mkdtempSync(join(tmpdir(), 'rollout-copies-'));
  const threadId = '01a2449b-b3ea-7292-9fa5-3781a2e78e5b';
  const created = new Date(SOURCE_MS).toISOString();
  const text = `{"type":"session_meta","payload":{"id":"${threadId}","timestamp":"${created}"}}\n{"type":"event_msg","payload":{"thread_id":"${threadId}"}}\n`;
  const [copy] = writeRolloutCopies(home, text, threadId, 1);
  const path = rolloutPathFor(home, copy!.id, copy!.createdAtMs);
  const at = new Date(copy!.createdAtMs).toISOString();
  expect(readFileSync(path, 'utf8')).toEqual(`{"type":"session_meta","payload":{"id":"${copy!.id}","timestamp":"${at}"}}\n{"type":"event_msg","payload":{"thread_id":"${copy!.id}"}}\n`);
  expect(readdirSync(join(path, '..'))).toEqual([path.slice(path.lastIndexOf('/') + 1)]);
});
