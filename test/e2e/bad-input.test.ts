// The bad-input corpus (test/fixtures/bad-input/corpus.jsonl) replayed on one connection of
// the real CLI: every case gets exactly the reply codex 0.171.0 gave (or none), nothing
// outside the home is touched, and afterwards the same connection still completes a turn.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { parseJson, stringifyJson, type JsonValue } from '../../src/common/json-text.js';
import { caseLines, loadCorpus, substitute } from '../fixtures/bad-input/corpus.mjs';
import { LOCK_BACKENDS, withBackend } from '../helpers/lock-backends.js';
import { TestServer } from '../helpers/test-server.js';
import { LARGE_LINE_BYTES } from '../../src/main/transport/transport.js';

interface Case {
  name: string;
  phase: 'preInit' | 'initialized';
  send: unknown[];
  expect: Record<string, JsonValue> | null;
}

const CORPUS = new URL('../fixtures/bad-input/corpus.jsonl', import.meta.url);
const corpus: Case[] = loadCorpus(readFileSync(CORPUS, 'utf8'), (line: string) => parseJson(line).value);
const REPLY_TIMEOUT_MS = 10_000;

/** Replies (not notifications) as raw lines parsed losslessly, so ids beyond 2^53 compare exactly. */
class Replies {
  readonly all: Array<Record<string, JsonValue>> = [];
  #waiters: Array<{ id: string; resolve: () => void }> = [];

  constructor(server: TestServer) {
    createInterface({ input: server.child.stdout }).on('line', (line) => {
      const message = parseJson(line).value as Record<string, JsonValue>;
      if ('method' in message) return;
      this.all.push(message);
      const id = stringifyJson(message.id ?? null);
      for (const waiter of this.#waiters.filter((w) => w.id === id)) waiter.resolve();
      this.#waiters = this.#waiters.filter((w) => w.id !== id);
    });
  }

  /** Resolves once a reply with this id (as JSON text) has arrived. */
  waitFor(id: string): Promise<void> {
    if (this.all.some((m) => stringifyJson(m.id ?? null) === id)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply with id ${id}`)), REPLY_TIMEOUT_MS);
      this.#waiters.push({ id, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }
}

/** Every file and directory under `root` with its size and mtime, skipping `skip`. */
function snapshot(root: string, skip: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (path === skip) continue;
      const stat = statSync(path);
      out[path] = `${stat.isDirectory() ? 'dir' : stat.size}@${stat.mtimeMs}`;
      if (stat.isDirectory()) walk(path);
    }
  };
  walk(root);
  return out;
}

let mock: MockModel;
let base: string;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
  // The home sits next to a sentinel directory: no case may change or add anything beside it.
  base = mkdtempSync(join(tmpdir(), 'thread-host-bad-input-'));
  mkdirSync(join(base, 'sentinel', 'nested'), { recursive: true });
  writeFileSync(join(base, 'sentinel', 'secret.jsonl'), '{"sentinel":true}\n');
});
afterAll(async () => {
  await mock.close();
  rmSync(base, { recursive: true, force: true });
});

/** Replays the corpus on one server in `home`, each line passed through `wrap`; returns the cases whose replies differ. */
async function replayCorpus(server: TestServer, wrap: (line: string | Buffer) => string | Buffer): Promise<{ mismatches: string[]; thread: string }> {
  const replies = new Replies(server);
  const vars: Record<string, string> = {};
  const mismatches: string[] = [];
  let initialized = false;

  for (const [index, c] of corpus.entries()) {
    if (c.phase === 'initialized' && !initialized) {
      await server.request('initialize', { clientInfo: { name: 'bad-input', version: '0.1.0' }, capabilities: { experimentalApi: true } });
      server.notify('initialized');
      vars.THREAD = (await server.request('thread/start', {})).thread.id;
      initialized = true;
    }
    const from = replies.all.length;
    // Text goes through sendLine, which notes request methods so replies are schema-checked.
    for (const line of (caseLines(c, vars) as Array<string | Buffer>).map(wrap)) {
      if (typeof line === 'string') server.sendText(line);
      else server.child.stdin.write(Buffer.concat([line, Buffer.from('\n')]));
    }
    // A sync request after the case: every case line before it has been handled by then.
    const syncId = `sync-${index}`;
    server.sendText(JSON.stringify({ id: syncId, method: 'thread/loaded/list', params: {} }));
    await replies.waitFor(JSON.stringify(syncId));
    const expected = c.expect === null ? null : (substitute(c.expect, vars) as Record<string, JsonValue>);
    if (expected !== null) await replies.waitFor(stringifyJson(expected.id ?? null)).catch(() => undefined);
    const got = replies.all.slice(from).filter((m) => !isDeepStrictEqual(m.id, syncId));
    const want = expected === null ? [] : [expected];
    if (!isDeepStrictEqual(got, want)) mismatches.push(`${c.name}\n  expected ${want.map(stringifyJson).join(' ') || 'no reply'}\n  got      ${got.map(stringifyJson).join(' ') || 'no reply'}`);
  }
  return { mismatches, thread: vars.THREAD! };
}

/** A turn on the connection after the corpus completes. */
async function turnCompletes(server: TestServer, threadId: string): Promise<void> {
  const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'still there?' }] });
  const completed = await server.waitForNotification('turn/completed', (params) => params.turn.id === turn.id);
  expect({ status: completed.turn.status, text: completed.turn.items.at(-1)?.text }).toEqual({ status: 'completed', text: 'Done' });
}

describe.each(LOCK_BACKENDS)('%s backend', (backend) => {
  test(`the ${corpus.length}-case corpus gets the reference's replies, touches nothing outside the home, and a turn still completes`, async () => {
    // Thread ids that could name other files reach the lock backend too: run on each.
    const home = join(base, `home-${backend}`);
    mkdirSync(home);
    const outside = snapshot(base, home);
    const server = await TestServer.start({ home, modelUrl: mock.url, initialize: false, rootConfig: withBackend(backend) });
    const { mismatches, thread } = await replayCorpus(server, (line) => line);
    expect(mismatches).toEqual([]);
    await turnCompletes(server, thread);
    expect(await server.close()).toBe(0);
    expect(server.stderr.split('\n').filter((line) => line.includes('"level":"error"'))).toEqual([]);
    expect(snapshot(base, home)).toEqual(outside);
    expect(readdirSync(base).sort()).toEqual([`home-${backend}`, 'sentinel']);
    expect(readFileSync(join(base, 'sentinel', 'secret.jsonl'), 'utf8')).toBe('{"sentinel":true}\n');
    rmSync(home, { recursive: true, force: true });
  }, 120_000);
});

// Trailing whitespace changes no answer (serde_json skips it) but makes every line large
// enough to be decoded and parsed by the line-parser worker instead of the main thread.
const PAD = ' '.repeat(LARGE_LINE_BYTES);

test(`the corpus with every line padded past ${LARGE_LINE_BYTES} bytes (parsed off the main thread) gets the same replies`, async () => {
  const home = join(base, 'home-padded');
  mkdirSync(home);
  const server = await TestServer.start({ home, modelUrl: mock.url, initialize: false });
  const { mismatches, thread } = await replayCorpus(server, (line) => (typeof line === 'string' ? line + PAD : Buffer.concat([line, Buffer.from(PAD)])));
  expect(mismatches).toEqual([]);
  await turnCompletes(server, thread);
  expect(await server.close()).toBe(0);
  expect(server.stderr.split('\n').filter((line) => line.includes('"level":"error"'))).toEqual([]);
  rmSync(home, { recursive: true, force: true });
}, 120_000);
