// The discovery and configuration methods against the reference's recorded answers
// (test/fixtures/reference-answers/discovery.jsonl, codex-cli 0.171.0): thread-host started on
// the same config.toml with the same `-c` overrides must give the same answer to each request,
// except where its content differs by design; each such difference is named in NORMALIZED and
// compared in a narrow way, and thread-host's own answer is pinned whole in the tests below.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { TestServer, type Message } from '../helpers/test-server.js';

const FIXTURES = new URL('../fixtures/reference-answers/', import.meta.url);
const OVERRIDES = ['-c', 'model=o9', '-c', 'model_providers.mock_provider.stream_max_retries=2'];

interface Recorded {
  method: string;
  params: unknown;
  answer: { result?: Message; error?: Message };
}

const recorded: Recorded[] = readFileSync(new URL('discovery.jsonl', FIXTURES), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Recorded);

let home: string;
let server: TestServer;
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'thread-host-discovery-'));
  copyFileSync(new URL('config.toml', FIXTURES), join(home, 'config.toml'));
  server = await TestServer.start({ home, keepConfig: true, args: OVERRIDES });
});
afterAll(async () => {
  expect(await server.close()).toBe(0);
  rmSync(home, { recursive: true, force: true });
});

const ask = (method: string, params: unknown): Promise<Message> =>
  params === '<absent>' ? server.requestRaw(method) : server.requestRaw(method, params);

/** The reference's answer in this home: only the home's path differs. */
const inThisHome = (answer: unknown): unknown => JSON.parse(JSON.stringify(answer).replaceAll('$CODEX_HOME', home));

const at = (object: Message, path: string): unknown => path.split('.').reduce<unknown>((value, key) => (value as Message)[key], object);

// What thread-host has less of than the reference, by design, in successful answers.
const NORMALIZED: Record<string, (reference: Message, ours: Message) => void> = {
  // Its own models, in the reference's Model shape: every entry has the reference's fields in order.
  'model/list': (reference, ours) => {
    const fields = Object.keys((reference.data as Message[])[0]!);
    for (const model of ours.data as Message[]) expect(Object.keys(model)).toEqual(fields);
  },
  // No skills: the same entries, empty.
  'skills/list': (reference, ours) =>
    expect(ours).toEqual({ data: (reference.data as Message[]).map((entry) => ({ cwd: entry.cwd, skills: [], errors: [] })) }),
  // No feature flags and no collaboration modes: the reference's shape, with nothing in it.
  'experimentalFeature/list': (reference, ours) => expect(ours).toEqual({ ...reference, data: [], nextCursor: null }),
  'collaborationMode/list': (reference, ours) => expect(ours).toEqual({ ...reference, data: [] }),
  // Its own effective config; the layers and where each key comes from are the reference's,
  // less the system layer (/etc/codex/config.toml), which thread-host does not read.
  'config/read': (reference, ours) => {
    if (reference.layers !== undefined) {
      expect(ours.layers).toEqual((reference.layers as Array<{ name: Message }>).filter((layer) => layer.name.type !== 'system'));
    } else {
      expect(ours.layers).toBeUndefined();
    }
    expect(ours.origins).toEqual(reference.origins);
    for (const path of Object.keys(ours.origins as Message)) expect(at(ours.config as Message, path)).toEqual(at(reference.config as Message, path));
  },
};

test('each recorded request gets the reference answer, or the named difference', async () => {
  expect(recorded.length).toBe(55);
  for (const { method, params, answer } of recorded) {
    const reply = await ask(method, params);
    const expected = inThisHome(answer) as Recorded['answer'];
    const label = `${method} ${JSON.stringify(params)}`;
    if (expected.error !== undefined) {
      // The one error that counts the catalog: thread-host's catalog holds its own models.
      const ours = method === 'model/list' ? String(expected.error.message).replace('total models 11', 'total models 1') : expected.error.message;
      expect(reply.error, label).toEqual({ ...expected.error, message: ours });
    } else if (NORMALIZED[method] !== undefined && JSON.stringify(reply.result) !== JSON.stringify(expected.result)) {
      expect(reply.error, label).toBeUndefined();
      NORMALIZED[method]!(expected.result!, reply.result as Message);
    } else {
      expect(reply.result, label).toEqual(expected.result);
    }
  }
});

test('model/list lists the configured model; the embedded one is hidden and paged like any', async () => {
  const configured = {
    id: 'o9',
    model: 'o9',
    upgrade: null,
    upgradeInfo: null,
    availabilityNux: null,
    displayName: 'o9',
    description: 'o9 from the model provider Mock provider for test (mock_provider).',
    modelSpecialty: null,
    hidden: false,
    supportedReasoningEfforts: [
      { reasoningEffort: 'low', description: 'Fast responses with lighter reasoning' },
      { reasoningEffort: 'medium', description: 'Balances speed and reasoning depth for everyday tasks' },
      { reasoningEffort: 'high', description: 'Greater reasoning depth for complex problems' },
    ],
    defaultReasoningEffort: 'medium',
    inputModalities: ['text', 'image'],
    supportsPersonality: false,
    multiAgentVersion: null,
    additionalSpeedTiers: [],
    serviceTiers: [],
    defaultServiceTier: null,
    availableAccessPrograms: null,
    isDefault: true,
  };
  const embedded = {
    ...configured,
    id: 'thread-host-echo',
    model: 'thread-host-echo',
    displayName: 'thread-host echo',
    description: "thread-host's embedded responder: answers every turn locally, without a model provider.",
    hidden: true,
    supportedReasoningEfforts: [{ reasoningEffort: 'none', description: 'No reasoning' }],
    defaultReasoningEffort: 'none',
    inputModalities: ['text'],
    isDefault: false,
  };
  expect(await server.request('model/list', {})).toEqual({ data: [configured], nextCursor: null });
  expect(await server.request('model/list', { includeHidden: true })).toEqual({ data: [configured, embedded], nextCursor: null });
  expect(await server.request('model/list', { includeHidden: true, limit: 0 })).toEqual({ data: [configured], nextCursor: '1' });
  expect(await server.request('model/list', { includeHidden: true, cursor: '1' })).toEqual({ data: [embedded], nextCursor: null });
  expect(await server.request('model/list', { includeHidden: true, cursor: '2' })).toEqual({ data: [], nextCursor: null });
  expect((await server.requestRaw('model/list', { includeHidden: true, cursor: '3' })).error).toEqual({ code: -32600, message: 'cursor 3 exceeds total models 2' });
});

test('config/read gives the effective config: defaults filled in, then every key the layers set', async () => {
  expect(await server.request('config/read', {})).toEqual({
    config: {
      model: 'o9',
      model_provider: 'mock_provider',
      approval_policy: 'never',
      approvals_reviewer: 'user',
      sandbox_mode: 'read-only',
      history_mode: 'paginated',
      thread_unload_delay_secs: 60,
      writer_lock_timeout_ms: 30_000,
      max_loaded_threads: null,
      max_line_bytes: 32 * 1024 * 1024,
      max_in_flight_requests: 1024,
      max_outbound_bytes: 64 * 1024 * 1024,
      model_providers: {
        mock_provider: { name: 'Mock provider for test', base_url: 'http://127.0.0.1:9/v1', wire_api: 'responses', request_max_retries: 0, stream_max_retries: 2 },
      },
    },
    origins: expect.any(Object),
  });
});

test('the embedded model alone when no provider is configured', async () => {
  const bare = await TestServer.start();
  const listed = await bare.request<{ data: Message[] }>('model/list', { includeHidden: true });
  expect(listed.data.map((model) => [model.id, model.hidden, model.isDefault])).toEqual([['thread-host-echo', false, true]]);
  const config = await bare.request<Message>('config/read', { includeLayers: true });
  expect(config.layers).toEqual([
    { name: { type: 'user', file: join(bare.home, 'config.toml'), profile: null }, version: 'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a', config: {} },
  ]);
  expect(config.origins).toEqual({});
  expect(await bare.close()).toBe(0);
});
