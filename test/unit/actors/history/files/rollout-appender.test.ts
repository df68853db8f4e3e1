import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { stampOrdinal } from '../../../../../src/actors/rollout-writer/paginated-format.js';
import { RolloutAppender } from '../../../../../src/actors/history/files/rollout-appender.js';
import { createLease, endLease, extendLease, leaseExpiry } from '../../../../../src/common/writer-lease.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rollout-appender-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('creation', () => {
  test('the file and its directories appear only at the first append', async () => {
    const path = join(dir, 'sessions', '2026', '12', '02', 'rollout.jsonl');
    const appender = new RolloutAppender(path);
    expect(existsSync(join(dir, 'sessions'))).toBe(false);

    await appender.append(['{"a":1}', '{"b":2}']);
    await appender.close();

    expect(await readFile(path, 'utf8')).toBe('{"a":1}\n{"b":2}\n');
  });

  test('an empty append neither creates the file nor fails', async () => {
    const path = join(dir, 'sessions', 'rollout.jsonl');
    const appender = new RolloutAppender(path);
    await appender.append([]);
    await appender.close();
    expect(existsSync(path)).toBe(false);
  });
});

describe('ordering', () => {
  test('appends that are not awaited land in call order', async () => {
    const path = join(dir, 'rollout.jsonl');
    const appender = new RolloutAppender(path);
    const expected: string[] = [];
    const pending: Promise<void>[] = [];
    for (let i = 0; i < 200; i += 1) {
      const batch = [`{"n":${i},"part":0}`, `{"n":${i},"part":1}`];
      expected.push(...batch);
      pending.push(appender.append(batch));
    }
    await Promise.all(pending);
    await appender.close();
    expect(await readFile(path, 'utf8')).toBe(`${expected.join('\n')}\n`);
  });

  test('close waits for appends queued before it', async () => {
    const path = join(dir, 'rollout.jsonl');
    const appender = new RolloutAppender(path);
    const first = appender.append(['one']);
    const second = appender.append(['two']);
    await appender.close();
    await Promise.all([first, second]);
    expect(await readFile(path, 'utf8')).toBe('one\ntwo\n');
  });
});

describe('resuming an existing file', () => {
  test('a torn last line left by a crash is ended before the next line', async () => {
    const path = join(dir, 'rollout.jsonl');
    await writeFile(path, '{"whole":true}\n{"torn":');
    const appender = new RolloutAppender(path);
    await appender.append(['{"next":1}']);
    await appender.append(['{"next":2}']);
    await appender.close();
    expect(await readFile(path, 'utf8')).toBe('{"whole":true}\n{"torn":\n{"next":1}\n{"next":2}\n');
  });

  test('a file that ends cleanly is appended to as is', async () => {
    const path = join(dir, 'rollout.jsonl');
    await writeFile(path, '{"whole":true}\n');
    const appender = new RolloutAppender(path);
    await appender.append(['{"next":1}']);
    await appender.close();
    expect(await readFile(path, 'utf8')).toBe('{"whole":true}\n{"next":1}\n');
  });
});

describe('closing', () => {
  test('close is idempotent and later appends are refused with the path', async () => {
    const path = join(dir, 'rollout.jsonl');
    const appender = new RolloutAppender(path);
    await appender.append(['one']);
    const firstClose = appender.close();
    expect(appender.close()).toBe(firstClose);
    await firstClose;
    await appender.close();
    await expect(appender.append(['two'])).rejects.toThrow(`rollout ${path} is closed; cannot append`);
    expect(await readFile(path, 'utf8')).toBe('one\n');
  });

  test('closing an appender that never wrote leaves no file', async () => {
    const path = join(dir, 'rollout.jsonl');
    await new RolloutAppender(path).close();
    expect(existsSync(path)).toBe(false);
  });
});

describe('failures', () => {
  test('a file that cannot be created fails that append and every later one, naming the path', async () => {
    await writeFile(join(dir, 'not-a-dir'), '');
    const path = join(dir, 'not-a-dir', 'sessions', 'rollout.jsonl');
    const appender = new RolloutAppender(path);

    const first = appender.append(['one']);
    const second = appender.append(['two']);
    const cause = `ENOTDIR: not a directory, mkdir '${join(dir, 'not-a-dir', 'sessions')}'`;
    await expect(first).rejects.toThrow(`failed to open rollout ${path}: ${cause}`);
    await expect(second).rejects.toThrow(
      `rollout ${path} is unwritable after an earlier failure: failed to open rollout ${path}: ${cause}`,
    );
    await expect(appender.close()).resolves.toBeUndefined();
  });

  test('a write the disk refuses rejects with the path and poisons later appends', async () => {
    // /dev/full accepts the open and fails every write with ENOSPC. It exists on every Linux
    // system, and Linux is the only platform we support.
    const appender = new RolloutAppender('/dev/full');
    await expect(appender.append(['one'])).rejects.toThrow(
      'failed to write to rollout /dev/full: ENOSPC: no space left on device, write',
    );
    await expect(appender.append(['two'])).rejects.toThrow(
      'rollout /dev/full is unwritable after an earlier failure: failed to write to rollout /dev/full: ENOSPC: no space left on device, write',
    );
    await appender.close();
  });
});

describe('ordinals (paginated history)', () => {
  const line = (n: number) => `{"timestamp":"2026-12-02T00:00:0${n}.000Z","type":"event_msg","payload":{"n":${n}}}`;

  test('each line gets the next ordinal as it is written, after the timestamp, and peeks count what is queued', async () => {
    const path = join(dir, 'rollout.jsonl');
    const appender = new RolloutAppender(path, { ordinals: { next: 7, stamp: stampOrdinal } });
    expect(appender.peekOrdinal()).toBe(7);
    const first = appender.append([line(1), line(2)]);
    expect(appender.peekOrdinal()).toBe(9);
    await Promise.all([first, appender.append([line(3)])]);
    await appender.close();
    expect((await readFile(path, 'utf8')).split('\n')).toEqual([
      '{"timestamp":"2026-12-02T00:00:01.000Z","ordinal":7,"type":"event_msg","payload":{"n":1}}',
      '{"timestamp":"2026-12-02T00:00:02.000Z","ordinal":8,"type":"event_msg","payload":{"n":2}}',
      '{"timestamp":"2026-12-02T00:00:03.000Z","ordinal":9,"type":"event_msg","payload":{"n":3}}',
      '',
    ]);
  });

  test('a write the disk refuses gives its ordinals back, so the file never has a gap', async () => {
    const path = join(dir, 'rollout.jsonl');
    let refuse = false;
    const faults = { bytesAccepted: (length: number) => (refuse ? Math.floor(length / 2) : length) };
    const appender = new RolloutAppender(path, { faults, ordinals: { next: 0, stamp: stampOrdinal } });
    await appender.append([line(1)]);
    refuse = true;
    await expect(appender.append([line(2), line(3)])).rejects.toThrow(/ENOSPC/);
    expect(appender.peekOrdinal()).toBe(1);
    refuse = false;
    expect(appender.reset()).toBe('ready');
    await appender.append([line(4)]);
    await appender.close();
    const ordinals = (await readFile(path, 'utf8')).trim().split('\n').map((text) => (JSON.parse(text) as { ordinal: number }).ordinal);
    expect(ordinals).toEqual([0, 1]);
  });
});

describe('revoking (the writer lock was lost)', () => {
  test('appends queued before the revoke and every one after it are refused, and nothing reaches the file', async () => {
    const path = join(dir, 'r.jsonl');
    const appender = new RolloutAppender(path);
    await appender.append(['{"n":1}']);
    // Queued behind each other; the revoke comes before the queue drains.
    const queued = [appender.append(['{"n":2}']), appender.append(['{"n":3}'])];
    appender.revoke('lost the lock');
    const results = await Promise.allSettled([...queued, appender.append(['{"n":4}'])]);
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'written'))).toEqual([
      'lost the lock',
      'lost the lock',
      'lost the lock',
    ]);
    expect([appender.reset(), await readFile(path, 'utf8')]).toEqual(['unrecoverable', '{"n":1}\n']);
    await appender.close();
  });

  test('a revoked appender never recreates a rollout deleted under it at close', async () => {
    const path = join(dir, 'r.jsonl');
    const appender = new RolloutAppender(path);
    await appender.append(['{"n":1}']);
    await rm(path);
    appender.revoke('lost the lock');
    await appender.close();
    expect(existsSync(path)).toBe(false);
  });
});

describe('the writer lease (a lock that can expire)', () => {
  test('a lease that ran out refuses the next write and every later one, naming when it ran out', async () => {
    const path = join(dir, 'r.jsonl');
    const lease = createLease(Date.now() + 60_000);
    const appender = new RolloutAppender(path, { lease });
    await appender.append(['{"n":1}']);
    const expiredAt = Date.now() - 1;
    const shortened = new BigInt64Array(lease);
    Atomics.store(shortened, 0, BigInt(expiredAt));
    const reason = `the writer lock's lease ran out at ${new Date(expiredAt).toISOString()} (its heartbeat stalled); nothing more is written to ${path}`;
    await expect(appender.append(['{"n":2}'])).rejects.toThrow(reason);
    extendLease(lease, Date.now() + 60_000);
    await expect(appender.append(['{"n":3}'])).rejects.toThrow(reason);
    expect(await readFile(path, 'utf8')).toBe('{"n":1}\n');
    await appender.close();
  });

  test('an ended lease (the lock was lost) refuses at once, and is never extended again', async () => {
    const path = join(dir, 'r.jsonl');
    const lease = createLease(Date.now() + 60_000);
    const appender = new RolloutAppender(path, { lease });
    endLease(lease);
    extendLease(lease, Date.now() + 60_000);
    await expect(appender.append(['{"n":1}'])).rejects.toThrow(`the writer lock of this thread was lost; nothing more is written to ${path}`);
    expect([existsSync(path), leaseExpiry(lease)]).toEqual([false, 0]);
  });
});
