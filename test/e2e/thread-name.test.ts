// thread/name/set as codex-cli 0.171.0 answers it (test/fixtures/reference-answers/thread-name.jsonl)
// and as it records it (session_index.jsonl): the name survives an unload, a restart and a cold
// resume, and a name the reference wrote into a home is read by thread-host.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { fixedThreadId } from '../helpers/fixed-ids.js';
import { writeMinimalRollout } from '../helpers/minimal-rollout.js';
import { listedNames, nameOf, replayRenames } from '../helpers/recorded-thread-changes.js';
import { TestServer, type Message } from '../helpers/test-server.js';

const FIXTURES = new URL('../fixtures/reference-answers/', import.meta.url);

test('renames answer as the reference does and last through unload, restart and cold resume', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-name-'));
  try {
    const server = await TestServer.start({ home, rootConfig: 'thread_unload_delay_secs = 0' });
    const threadId = await replayRenames(server);
    expect(await server.close()).toBe(0);

    // The index holds the reference's lines: same keys, same order, nanosecond timestamps.
    const written = readFileSync(join(home, 'session_index.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
    const reference = readFileSync(new URL('session_index.jsonl', FIXTURES), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
    const timeless = (entries: Message[], id: string) => entries.map((entry) => ({ ...entry, id: entry.id.replace('<thread>', id), updated_at: typeof entry.updated_at }));
    expect(timeless(written, threadId)).toEqual(timeless(reference, threadId));
    for (const entry of written) expect(entry.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
    expect(written.map((entry) => Object.keys(entry))).toEqual(reference.map((entry) => Object.keys(entry)));

    const restarted = await TestServer.start({ home, keepConfig: true });
    expect([await nameOf(restarted, threadId), await listedNames(restarted)]).toEqual(['after unsubscribe', ['after unsubscribe']]);
    expect((await restarted.request('thread/resume', { threadId })).thread.name).toBe('after unsubscribe');
    expect(await restarted.close()).toBe(0);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('a name the reference wrote into the home is read at start', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-name-'));
  try {
    const threadId = fixedThreadId(7);
    writeMinimalRollout(home, { threadId, created: '2026-12-02T10:00:01.250Z', message: 'hello' });
    copyFileSync(new URL('session_index.jsonl', FIXTURES), join(home, 'session_index.jsonl'));
    writeFileSync(join(home, 'session_index.jsonl'), readFileSync(join(home, 'session_index.jsonl'), 'utf8').replaceAll('<thread>', threadId));
    const server = await TestServer.start({ home });
    expect([await nameOf(server, threadId), await listedNames(server)]).toEqual(['after unsubscribe', ['after unsubscribe']]);
    expect(await server.close()).toBe(0);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
