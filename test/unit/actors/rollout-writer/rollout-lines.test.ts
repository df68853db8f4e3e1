import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { RolloutAppender } from '../../../../src/actors/history/files/rollout-appender.js';
import {
  sessionMeta,
  taskComplete,
  taskStarted,
  tokenCount,
  turnAborted,
  turnContext,
  turnFailed,
} from '../../../../src/actors/rollout-writer/rollout-lines.js';
import { agentMessage, itemCompleted, userMessage } from '../../../../src/actors/rollout-writer/message-lines.js';
import { readRollout } from '../../../../src/common/rollout/rollout-reader.js';
import type { AgentMessageItem, ModelUsage, TurnId, UserMessageItem } from '../../../../src/common/wire-types.js';

const T0 = Date.parse('2026-12-02T11:10:30.500Z');
const SEC = Math.floor(T0 / 1000);
const THREAD = '01a23672-ea80-7301-8e95-16757bdc1196';
const TURN_1 = '01a23672-ea8e-7700-a77b-8bf4e723901b' as TurnId;
const TURN_2 = '01a23672-eac1-7962-80a9-60f2ec99781b' as TurnId;

const META = {
  threadId: THREAD,
  createdAtMs: T0,
  cwd: '/home/me/project',
  originator: 'thread-host-tests',
  cliVersion: '0.171.0',
  source: 'vscode' as const,
  modelProvider: 'mock_provider',
  model: 'mock-model',
  baseInstructions: 'be brief',
};
const CONTEXT = {
  cwd: '/home/me/project',
  approvalPolicy: 'never',
  approvalsReviewer: 'user',
  sandboxMode: 'read-only' as const,
  model: 'mock-model',
  effort: null,
  developerInstructions: null,
};

const user1: UserMessageItem = {
  type: 'userMessage',
  id: '01a23672-ea9d-7ad2-8f89-4b0ce36a3ead',
  clientId: 'client-1',
  content: [{ type: 'text', text: 'hello', text_elements: [{ byteRange: { start: 0, end: 5 }, placeholder: null }] }],
  startedAtMs: T0 + 10,
  completedAtMs: T0 + 10,
};
const user2: UserMessageItem = {
  type: 'userMessage',
  id: '01a23672-eacd-7db2-a076-dcf261ad1353',
  clientId: null,
  content: [
    { type: 'text', text: 'and again', text_elements: [] },
    { type: 'image', url: 'https://example.com/a.png', detail: null },
  ],
  startedAtMs: T0 + 110,
  completedAtMs: T0 + 110,
};
const agentItem = (id: string, text: string, atMs: number): AgentMessageItem => ({
  type: 'agentMessage',
  moderation: null,
  id,
  text,
  phase: null,
  memoryCitation: null,
  delivery: null,
  questions: null,
  startedAtMs: atMs,
  completedAtMs: atMs,
});
const usage = (input: number, output: number): ModelUsage => ({
  inputTokens: input,
  cachedInputTokens: 0,
  outputTokens: output,
  reasoningOutputTokens: 0,
  totalTokens: input + output,
});

describe('a thread written with the builders reads back unchanged', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rollout-lines-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('two turns round-trip through the appender and the reader', async () => {
    const path = join(dir, 'sessions', '2026', '12', '02', `rollout-2026-12-02T11-10-30-${THREAD}.jsonl`);
    const appender = new RolloutAppender(path);
    await appender.append([
      sessionMeta(META, T0),
      taskStarted(TURN_1, SEC, T0 + 1),
      turnContext({ ...CONTEXT, turnId: TURN_1 }, T0 + 2),
      ...userMessage(user1, T0 + 10, TURN_1),
    ]);
    await appender.append([
      ...agentMessage(agentItem('msg-1', 'Done', T0 + 40), T0 + 40, TURN_1),
      tokenCount({ total: usage(10, 2), last: usage(10, 2), modelContextWindow: 258400 }, T0 + 41),
      taskComplete({ turnId: TURN_1, lastAgentMessage: 'Done', startedAtSec: SEC, completedAtSec: SEC, durationMs: 42 }, T0 + 42),
    ]);
    await appender.append([
      taskStarted(TURN_2, SEC, T0 + 100),
      turnContext({ ...CONTEXT, turnId: TURN_2 }, T0 + 101),
      ...userMessage(user2, T0 + 110, TURN_2),
      ...agentMessage(agentItem('msg-2', 'Done again', T0 + 140), T0 + 140, TURN_2),
      tokenCount({ total: usage(25, 5), last: usage(15, 3), modelContextWindow: 258400 }, T0 + 141),
      taskComplete({ turnId: TURN_2, lastAgentMessage: 'Done again', startedAtSec: SEC, completedAtSec: SEC, durationMs: 48 }, T0 + 148),
    ]);
    await appender.close();

    expect(await readRollout(path)).toEqual({
      threadId: THREAD,
      meta: {
        createdAtMs: T0,
        cwd: '/home/me/project',
        originator: 'thread-host-tests',
        cliVersion: '0.171.0',
        source: { value: 'vscode', kind: 'vscode' },
        modelProvider: 'mock_provider',
        model: 'mock-model',
        baseInstructions: 'be brief',
        historyMode: 'legacy',
        forkedFromId: null,
        dynamicTools: null,
      },
      turns: [
        {
          id: TURN_1,
          rootTurnId: TURN_1,
          // The legacy event names the text an element without a placeholder covers, as the reference does.
          items: [{ ...user1, content: [{ type: 'text', text: 'hello', text_elements: [{ byteRange: { start: 0, end: 5 }, placeholder: 'hello' }] }] }, agentItem('msg-1', 'Done', T0 + 40)],
          itemsView: 'full',
          status: 'completed',
          error: null,
          startedAt: SEC,
          completedAt: SEC,
          durationMs: 42,
        },
        {
          id: TURN_2,
          rootTurnId: TURN_2,
          items: [user2, agentItem('msg-2', 'Done again', T0 + 140)],
          itemsView: 'full',
          status: 'completed',
          error: null,
          startedAt: SEC,
          completedAt: SEC,
          durationMs: 48,
        },
      ],
      positions: [
        { ordinal: null, items: [null, null] },
        { ordinal: null, items: [null, null] },
      ],
      messages: [
        { role: 'user', text: 'hello' },
        { role: 'assistant', text: 'Done' },
        // The message carried an image: the model is replayed its parts.
        { role: 'user', text: 'and again', parts: [{ type: 'input_text', text: 'and again' }, { type: 'input_image', image_url: 'https://example.com/a.png' }] },
        { role: 'assistant', text: 'Done again' },
      ],
      preview: 'hello',
      lastTokenUsage: {
        total: { totalTokens: 30, inputTokens: 25, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 5, reasoningOutputTokens: 0 },
        last: { totalTokens: 18, inputTokens: 15, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 3, reasoningOutputTokens: 0 },
        modelContextWindow: 258400,
      },
      updatedAtMs: T0 + 148,
      lastTurnId: TURN_2,
      skippedLines: 0,
      appendPoint: { kind: 'legacy' },
    });
  });
});

// Every key path of a JSON value ("payload.info.total_token_usage.input_tokens"), sorted.
// Arrays contribute the keys of their first element, under "[]".
function keyPaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.length === 0 ? [] : keyPaths(value[0], `${prefix}[]`);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value)
    .flatMap(([key, child]) => {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      return [path, ...keyPaths(child, path)];
    })
    .sort();
}

type SampleLine = { type: string; payload: { type?: string; role?: string; error?: unknown } };
const loadSample = (name: string): SampleLine[] =>
  readFileSync(new URL(`../../../fixtures/rollouts/${name}`, import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as SampleLine);

describe('the lines have the reference samples\' shapes', () => {
  const sample = loadSample('rollout-legacy-two-turns.jsonl');
  // The first line of a kind; for user messages, the user's own text rather than the context.
  const find = (type: string, inner?: string, role?: string, lines: SampleLine[] = sample): unknown =>
    lines.find(
      (l) =>
        l.type === type &&
        (inner === undefined || l.payload.type === inner) &&
        (role === undefined || l.payload.role === role) &&
        (role !== 'user' || JSON.stringify(l).includes('"user.text"')),
    );
  const failedSample = loadSample('rollout-paginated-failed-then-completed.jsonl').filter((l) => l.payload.error !== undefined);
  const interruptedSample = loadSample('rollout-legacy-interrupted.jsonl');
  // Keys the reference keeps for its own bookkeeping, which we leave out (see rollout-lines.ts).
  const without = (paths: string[], omitted: string[]): string[] =>
    paths.filter((p) => !omitted.some((o) => p === o || p.startsWith(`${o}.`)));

  const [userItem, userEvent] = userMessage({ ...user1, clientId: null, content: [{ type: 'text', text: 'hello', text_elements: [] }] }, T0, TURN_1);
  const [agentEvent, agentResponse] = agentMessage(agentItem('msg-1', 'Done', T0), T0, TURN_1);
  const timing = { turnId: TURN_1, startedAtSec: SEC, completedAtSec: SEC, durationMs: 42 };
  const [failed] = turnFailed({ ...timing, lastAgentMessage: null, message: 'boom', codexErrorInfo: 'internal_server_error' }, T0);
  const cases: Array<[string, string, unknown, string[]]> = [
    ['session_meta', sessionMeta(META, T0), find('session_meta'), ['payload.account_scoped', 'payload.context_window']],
    ['task_started', taskStarted(TURN_1, SEC, T0), find('event_msg', 'task_started'), []],
    ['turn_context', turnContext({ ...CONTEXT, turnId: TURN_1 }, T0), find('turn_context'), ['payload.permission_profile']],
    ['user response_item', userItem as string, find('response_item', 'message', 'user'), ['metadata']],
    ['user_message', userEvent as string, find('event_msg', 'user_message'), []],
    ['agent_message', agentEvent as string, find('event_msg', 'agent_message'), []],
    ['assistant response_item', agentResponse as string, find('response_item', 'message', 'assistant'), ['metadata']],
    ['token_count', tokenCount({ total: usage(0, 0), last: usage(0, 0), modelContextWindow: 258400 }, T0), find('event_msg', 'token_count'), ['payload.rate_limits']],
    ['task_complete', taskComplete({ ...timing, lastAgentMessage: 'Done', timeToFirstTokenMs: 40 }, T0), find('event_msg', 'task_complete'), []],
    // `ordinal` is a paginated-mode key; we write legacy rollouts.
    ['failed task_complete', failed as string, failedSample[0], ['ordinal']],
    ['turn_aborted', turnAborted({ ...timing, reason: 'interrupted' }, T0), find('event_msg', 'turn_aborted', undefined, interruptedSample), []],
  ];

  test.each(cases)('%s has the sample\'s keys, less the bookkeeping ones', (_name, ours, theirs, omitted) => {
    const parsed: unknown = JSON.parse(ours);
    // token_count's rate_limits is kept, but null: we have no snapshot to put in it.
    const expected = without(keyPaths(theirs), omitted);
    expect(without(keyPaths(parsed), omitted)).toEqual(expected);
    expect(ours).not.toContain('\n');
  });

  test('the envelope is timestamp, type and payload with a UTC millisecond timestamp', () => {
    expect(JSON.parse(taskStarted(TURN_1, SEC, T0))).toEqual({
      timestamp: '2026-12-02T11:10:30.500Z',
      type: 'event_msg',
      payload: expect.any(Object),
    });
  });

  test('the session meta names the thread and legacy history mode', () => {
    expect(JSON.parse(sessionMeta(META, T0 + 15)).payload).toEqual({
      session_id: THREAD,
      id: THREAD,
      timestamp: '2026-12-02T11:10:30.500Z',
      cwd: '/home/me/project',
      runtime_workspace_roots: ['/home/me/project'],
      originator: 'thread-host-tests',
      cli_version: '0.171.0',
      source: 'vscode',
      model_provider: 'mock_provider',
      base_instructions: { text: 'be brief', provenance: { type: 'model', model: 'mock-model' } },
      history_mode: 'legacy',
    });
  });

  test('an interrupted turn is one turn_aborted event with the reference\'s fields', () => {
    const aborted = turnAborted(
      { turnId: TURN_1, reason: 'interrupted', startedAtSec: SEC, completedAtSec: SEC + 2, durationMs: 1500 },
      T0,
    );
    expect(JSON.parse(aborted)).toEqual({
      timestamp: '2026-12-02T11:10:30.500Z',
      type: 'event_msg',
      payload: {
        type: 'turn_aborted',
        root_turn_id: TURN_1,
        turn_id: TURN_1,
        reason: 'interrupted',
        started_at: SEC,
        completed_at: SEC + 2,
        duration_ms: 1500,
      },
    });
  });

  test('a failed turn is one task_complete that carries the error, as 0.171.0 writes it', () => {
    const lines = turnFailed(
      { turnId: TURN_1, message: 'boom', lastAgentMessage: null, startedAtSec: SEC, completedAtSec: SEC + 1, durationMs: 900 },
      T0,
    );
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      {
        timestamp: '2026-12-02T11:10:30.500Z',
        type: 'event_msg',
        payload: {
          type: 'task_complete',
          root_turn_id: TURN_1,
          turn_id: TURN_1,
          last_agent_message: null,
          error: { message: 'boom', codex_error_info: 'other' },
          started_at: SEC,
          completed_at: SEC + 1,
          duration_ms: 900,
        },
      },
    ]);
  });

  test('a failed turn keeps the classified error kind it is given', () => {
    const [line] = turnFailed(
      {
        turnId: TURN_1,
        message: 'upstream 500',
        codexErrorInfo: 'internal_server_error',
        lastAgentMessage: null,
        startedAtSec: SEC,
        completedAtSec: SEC,
        durationMs: 41,
      },
      T0,
    );
    expect((JSON.parse(line as string) as { payload: { error: unknown } }).payload.error).toEqual({
      message: 'upstream 500',
      codex_error_info: 'internal_server_error',
    });
  });

  test('user text elements are written in the core snake_case spelling', () => {
    const [, event] = userMessage(user1, T0, TURN_1);
    expect(JSON.parse(event as string).payload).toEqual({
      type: 'user_message',
      client_id: 'client-1',
      message: 'hello',
      images: [],
      local_images: [],
      audio: [],
      local_audio: [],
      text_elements: [{ byte_range: { start: 0, end: 5 }, placeholder: 'hello' }],
    });
  });

  // As codex 0.171.0 writes them (probed): texts run together, a placeholder the text it
  // covers, each image list's details without trailing nulls, and where each image came from.
  const mixed: UserMessageItem = {
    type: 'userMessage',
    id: '01a23672-ea9d-7ad2-8f89-4b0ce36a3eae',
    clientId: null,
    content: [
      { type: 'text', text: 'x @y', text_elements: [{ byteRange: { start: 2, end: 4 }, placeholder: '@y' }] },
      { type: 'image', url: 'data:image/png;base64,AAAA', detail: null },
      { type: 'localImage', path: '/a.png', detail: 'high' },
      { type: 'image', url: 'data:image/png;base64,BBBB', detail: 'original' },
      { type: 'localImage', path: '/b.png', detail: null },
      { type: 'text', text: 'é @w', text_elements: [{ byteRange: { start: 3, end: 5 }, placeholder: null }] },
    ],
    startedAtMs: T0,
    completedAtMs: T0,
  };

  test('a legacy user_message flattens texts, images and their details as the reference does', () => {
    const [, event] = userMessage(mixed, T0, TURN_1);
    expect(JSON.parse(event as string).payload).toEqual({
      type: 'user_message',
      message: 'x @yé @w',
      images: ['data:image/png;base64,AAAA', 'data:image/png;base64,BBBB'],
      image_details: [null, 'original'],
      image_order: ['inline', 'inline'],
      local_images: ['/a.png', '/b.png'],
      local_image_details: ['high'],
      audio: [],
      local_audio: [],
      text_elements: [{ byte_range: { start: 2, end: 4 }, placeholder: '@y' }, { byte_range: { start: 7, end: 9 }, placeholder: '@w' }],
    });
    const [, plain] = userMessage({ ...mixed, content: [{ type: 'localImage', path: '/a.png', detail: null }] }, T0, TURN_1);
    expect(JSON.parse(plain as string).payload).toEqual({ type: 'user_message', message: '', images: [], local_images: ['/a.png'], audio: [], local_audio: [], text_elements: [] });
  });

  test('a paginated item keeps a null placeholder and a local image\'s detail', () => {
    const payload = JSON.parse(itemCompleted(THREAD, TURN_1, mixed, T0)).payload;
    expect(payload.item.content).toEqual([
      { type: 'text', text: 'x @y', text_elements: [{ byte_range: { start: 2, end: 4 }, placeholder: '@y' }] },
      { type: 'image', image_url: 'data:image/png;base64,AAAA' },
      { type: 'local_image', path: '/a.png', detail: 'high' },
      { type: 'image', image_url: 'data:image/png;base64,BBBB', detail: 'original' },
      { type: 'local_image', path: '/b.png' },
      { type: 'text', text: 'é @w', text_elements: [{ byte_range: { start: 3, end: 5 }, placeholder: null }] },
    ]);
  });
});
