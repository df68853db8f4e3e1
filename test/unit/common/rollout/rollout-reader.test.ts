import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import {
  sessionMeta,
  taskComplete,
  taskStarted,
  turnAborted,
  turnFailed,
} from '../../../../src/actors/rollout-writer/rollout-lines.js';
import { agentMessage, userMessage } from '../../../../src/actors/rollout-writer/message-lines.js';
import type { ParsedRollout } from '../../../../src/common/rollout/rollout-reader.js';
import { parseRollout, readRollout } from '../../../../src/common/rollout/rollout-reader.js';
import { TURN_ABORTED_TEXT } from '../../../../src/actors/rollout-writer/harness-notes.js';
import type { AgentMessageItem, Turn, TurnId, UserMessageItem } from '../../../../src/common/wire-types.js';

const FIXTURES = new URL('../../../fixtures/rollouts/', import.meta.url);
const LEGACY = new URL('rollout-legacy-two-turns.jsonl', FIXTURES);
const PAGINATED = new URL('rollout-paginated-two-turns.jsonl', FIXTURES);
const FAILED_THEN_COMPLETED = new URL('rollout-paginated-failed-then-completed.jsonl', FIXTURES);
const INTERRUPTED = new URL('rollout-legacy-interrupted.jsonl', FIXTURES);

const ZERO_USAGE = {
  totalTokens: 0,
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteInputTokens: 0,
  outputTokens: 0,
  reasoningOutputTokens: 0,
};

function user(id: string, text: string, atMs: number): UserMessageItem {
  return {
    type: 'userMessage',
    id,
    clientId: null,
    content: [{ type: 'text', text, text_elements: [] }],
    startedAtMs: atMs,
    completedAtMs: atMs,
  };
}

function agent(id: string, text: string, atMs: number): AgentMessageItem {
  return {
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
  };
}

function turn(id: string, fields: Partial<Turn>): Turn {
  return {
    id: id as TurnId,
    rootTurnId: id as TurnId,
    items: [],
    itemsView: 'full',
    status: 'completed',
    error: null,
    startedAt: null,
    completedAt: null,
    durationMs: null,
    ...fields,
  };
}

const ms = (iso: string): number => Date.parse(iso);

describe('reading the reference rollouts', () => {
  test('the legacy sample yields both turns with their ids, texts and timestamps', async () => {
    const parsed = await readRollout(fileURLToPath(LEGACY));
    const expected: ParsedRollout = {
      threadId: '01a23672-ea80-7301-8e95-16757bdc1196',
      meta: {
        createdAtMs: ms('2026-12-02T11:10:30.530Z'),
        cwd: '/home/me/.codex',
        originator: 'codex-app-server-tests',
        cliVersion: '0.171.0',
        source: { value: 'vscode', kind: 'vscode' },
        modelProvider: 'mock_provider',
        model: 'mock-model',
        baseInstructions: "<the reference's built-in instructions, 20751 characters, elided>",
        historyMode: 'legacy',
        forkedFromId: null,
        dynamicTools: null,
      },
      turns: [
        turn('01a23672-ea8e-7700-a77b-8bf4e723901b', {
          items: [
            user('01a23672-ea9d-7ad2-8f89-4b0ce36a3ead', 'hello', ms('2026-12-02T11:10:30.557Z')),
            agent('msg-1', 'Done', ms('2026-12-02T11:10:30.582Z')),
          ],
          startedAt: 1796209830,
          completedAt: 1796209830,
          durationMs: 42,
        }),
        turn('01a23672-eac1-7962-80a9-60f2ec99781b', {
          items: [
            user('01a23672-eacd-7db2-a076-dcf261ad1353', 'and again', ms('2026-12-02T11:10:30.606Z')),
            agent('msg-1', 'Done', ms('2026-12-02T11:10:30.634Z')),
          ],
          startedAt: 1796209830,
          completedAt: 1796209830,
          durationMs: 48,
        }),
      ],
      // Legacy lines carry no ordinals, so nothing anchors a paginated cursor.
      positions: [
        { ordinal: null, items: [null, null] },
        { ordinal: null, items: [null, null] },
      ],
      messages: [
        { role: 'user', text: 'hello' },
        { role: 'assistant', text: 'Done' },
        { role: 'user', text: 'and again' },
        { role: 'assistant', text: 'Done' },
      ],
      preview: 'hello',
      lastTokenUsage: { total: ZERO_USAGE, last: ZERO_USAGE, modelContextWindow: 258400 },
      updatedAtMs: ms('2026-12-02T11:10:30.642Z'),
      lastTurnId: '01a23672-eac1-7962-80a9-60f2ec99781b',
      skippedLines: 0,
      appendPoint: { kind: 'legacy' },
    };
    expect(parsed).toEqual(expected);
  });

  test('the paginated sample yields the item ids and times from its item_completed events', async () => {
    const parsed = await readRollout(fileURLToPath(PAGINATED));
    expect(parsed.turns).toEqual([
      turn('01a23672-eb08-77f1-b393-249eaf8bf0cb', {
        items: [
          user('01a23672-eb21-7742-93cc-6d8c50828216', 'hello', 1796209830690),
          agent('msg-1', 'Done', 1796209830710),
        ],
        startedAt: 1796209830,
        completedAt: 1796209830,
        durationMs: 50,
      }),
      turn('01a23672-eb41-7da0-9ae0-8093131cf0e0', {
        items: [
          user('01a23672-eb4b-7411-a767-d3890f2fb910', 'and again', 1796209830731),
          agent('msg-1', 'Done', 1796209830750),
        ],
        startedAt: 1796209830,
        completedAt: 1796209830,
        durationMs: 33,
      }),
    ]);
    expect({ ...parsed, turns: [] }).toEqual({
      threadId: '01a23672-eafd-79e2-a787-4ec115bd4630',
      meta: {
        createdAtMs: ms('2026-12-02T11:10:30.655Z'),
        cwd: '/home/me/.codex',
        originator: 'codex-app-server-tests',
        cliVersion: '0.171.0',
        source: { value: 'vscode', kind: 'vscode' },
        modelProvider: 'mock_provider',
        model: 'mock-model',
        baseInstructions: "<the reference's built-in instructions, 20751 characters, elided>",
        historyMode: 'paginated',
        forkedFromId: null,
        dynamicTools: null,
      },
      turns: [],
      // task_started and item_completed lines, where the reference's cursors point.
      positions: [
        { ordinal: 1, items: [8, 9] },
        { ordinal: 14, items: [17, 18] },
      ],
      messages: [
        { role: 'user', text: 'hello' },
        { role: 'assistant', text: 'Done' },
        { role: 'user', text: 'and again' },
        { role: 'assistant', text: 'Done' },
      ],
      preview: 'hello',
      lastTokenUsage: { total: ZERO_USAGE, last: ZERO_USAGE, modelContextWindow: 258400 },
      updatedAtMs: ms('2026-12-02T11:10:30.756Z'),
      lastTurnId: '01a23672-eb41-7da0-9ae0-8093131cf0e0',
      skippedLines: 0,
      appendPoint: { kind: 'paginated', nextOrdinal: 23 },
    });
  });
});

describe('reading the reference\'s failed and interrupted turns', () => {
  test('a paginated thread yields the failed turn and the completed one exactly as the reference reads them', async () => {
    const parsed = await readRollout(fileURLToPath(FAILED_THEN_COMPLETED));
    // These turns are the ones the reference's own thread/read returned for this thread.
    expect(parsed.turns).toEqual([
      turn('01a23693-9fad-7803-a0f0-5e4fb4c14c3c', {
        items: [user('01a23693-9fc7-7d52-b082-acbc2e7ec07d', 'Fail with 500', 1796211974090)],
        status: 'failed',
        error: {
          message: 'We\u2019re currently experiencing high demand, which may cause temporary errors.',
          codexErrorInfo: 'internalServerError',
          additionalDetails: null,
          misalignment: null,
        },
        startedAt: 1796211974,
        completedAt: 1796211974,
        durationMs: 64,
      }),
      turn('01a23693-a125-7353-8a23-862c3121258c', {
        items: [
          user('01a23693-a138-78c1-be13-d03d74e26f4d', 'Now succeed', 1796211974457),
          agent('msg-1', 'Done', 1796211974480),
        ],
        startedAt: 1796211974,
        completedAt: 1796211974,
        durationMs: 49,
      }),
    ]);
    expect({ ...parsed, turns: [] }).toEqual({
      threadId: '01a23693-9f0d-7000-9f90-7adff1c66f30',
      meta: {
        createdAtMs: ms('2026-12-02T11:46:13.902Z'),
        cwd: '/work/scratch/homes/h-Dw568s',
        originator: 'codex-app-server-tests',
        cliVersion: '0.171.0',
        source: { value: 'vscode', kind: 'vscode' },
        modelProvider: 'mock_provider',
        model: 'mock-model',
        baseInstructions: "<the reference's built-in instructions, 20751 characters, elided>",
        historyMode: 'paginated',
        forkedFromId: null,
        dynamicTools: null,
      },
      turns: [],
      positions: [
        { ordinal: 1, items: [8] },
        { ordinal: 10, items: [13, 14] },
      ],
      // The failed turn's request stays in the conversation; it got no reply.
      messages: [
        { role: 'user', text: 'Fail with 500' },
        { role: 'user', text: 'Now succeed' },
        { role: 'assistant', text: 'Done' },
      ],
      preview: 'Fail with 500',
      lastTokenUsage: {
        total: { ...ZERO_USAGE, totalTokens: 12, inputTokens: 10, outputTokens: 2 },
        last: { ...ZERO_USAGE, totalTokens: 12, inputTokens: 10, outputTokens: 2 },
        modelContextWindow: 258400,
      },
      updatedAtMs: ms('2026-12-02T11:46:14.489Z'),
      lastTurnId: '01a23693-a125-7353-8a23-862c3121258c',
      skippedLines: 0,
      appendPoint: { kind: 'paginated', nextOrdinal: 19 },
    });
  });

  test('a legacy interrupted turn keeps only the user message; its <turn_aborted> note is no item, and is replayed to the model', async () => {
    // The reader keeps the id of the user's response item and the line's timestamp; the views
    // rename legacy items positionally (`item-1`) with null times, as the reference's
    // thread/read does (history-view.ts). Status, error and timing are the reference's.
    expect(await readRollout(fileURLToPath(INTERRUPTED))).toEqual({
      threadId: '01a23694-6f88-77f0-ade0-f68c40796a72',
      meta: {
        createdAtMs: ms('2026-12-02T11:47:07.274Z'),
        cwd: '/work/scratch/homes/h-OXboJx',
        originator: 'codex-app-server-tests',
        cliVersion: '0.171.0',
        source: { value: 'vscode', kind: 'vscode' },
        modelProvider: 'mock_provider',
        model: 'mock-model',
        baseInstructions: "<the reference's built-in instructions, 20751 characters, elided>",
        historyMode: 'legacy',
        forkedFromId: null,
        dynamicTools: null,
      },
      turns: [
        turn('01a23694-7029-7a80-994e-77da73be55ba', {
          items: [user('01a23694-703b-7653-8239-a277d18891f2', 'Take forever', ms('2026-12-02T11:47:07.452Z'))],
          status: 'interrupted',
          startedAt: 1796212027,
          completedAt: 1796212028,
          durationMs: 659,
        }),
      ],
      positions: [{ ordinal: null, items: [null] }],
      // The reference gives the model the note on the next turn, a resumed one's too (probed).
      messages: [{ role: 'user', text: 'Take forever' }, { role: 'user', text: TURN_ABORTED_TEXT }],
      preview: 'Take forever',
      // The only token_count has `info: null`: the model never reported usage.
      lastTokenUsage: null,
      updatedAtMs: ms('2026-12-02T11:47:08.094Z'),
      lastTurnId: '01a23694-7029-7a80-994e-77da73be55ba',
      skippedLines: 0,
      appendPoint: { kind: 'legacy' },
    });
  });
});

describe('damaged files', () => {
  const legacyText = readFileSync(LEGACY, 'utf8');

  test('a torn last line is ignored without being counted', () => {
    const torn = `${legacyText}{"timestamp":"2026-12-02T11:10:31.000Z","type":"event_msg","payload":{"type":"task_st`;
    expect(parseRollout(torn)).toEqual(parseRollout(legacyText));
  });

  test('a garbage line in the middle is skipped and counted', () => {
    const lines = legacyText.split('\n');
    lines.splice(9, 0, 'this is not json');
    expect(parseRollout(lines.join('\n'))).toEqual({ ...parseRollout(legacyText), skippedLines: 1 });
  });

  test('unknown line types and unknown events are ignored', () => {
    const extra =
      '{"timestamp":"2026-12-02T11:10:30.643Z","type":"brand_new_kind","payload":{"x":1}}\n' +
      '{"timestamp":"2026-12-02T11:10:30.644Z","type":"event_msg","payload":{"type":"brand_new_event"}}\n';
    const parsed = parseRollout(legacyText + extra);
    expect({ ...parsed, updatedAtMs: 0 }).toEqual({ ...parseRollout(legacyText), updatedAtMs: 0 });
    expect(parsed.updatedAtMs).toBe(ms('2026-12-02T11:10:30.644Z'));
  });

  test('an empty file has no thread, no turns and no update time', () => {
    expect(parseRollout('')).toEqual({
      threadId: null,
      meta: null,
      turns: [],
      positions: [],
      messages: [],
      preview: '',
      lastTokenUsage: null,
      updatedAtMs: 0,
      lastTurnId: null,
      skippedLines: 0,
      appendPoint: { kind: 'unwritable', reason: 'it has no session_meta record' },
    });
  });
});

describe('turn outcomes', () => {
  const T0 = ms('2026-12-02T12:00:00.000Z');
  const SEC = T0 / 1000;
  const THREAD = '01a23700-0000-7000-8000-000000000001';
  const TURN_A = '01a23700-0000-7000-8000-00000000000a';
  const TURN_B = '01a23700-0000-7000-8000-00000000000b';
  const head = sessionMeta(
    {
      threadId: THREAD,
      createdAtMs: T0,
      cwd: '/w',
      originator: 'test',
      cliVersion: '0.171.0',
      source: 'vscode',
      modelProvider: 'mock_provider',
      model: 'mock-model',
      baseInstructions: null,
    },
    T0,
  );
  const turnA = [
    taskStarted(TURN_A, SEC, T0 + 1),
    ...userMessage(user('u-a', 'first', T0 + 2), T0 + 2, TURN_A),
    ...agentMessage(agent('m-a', 'partial', T0 + 3), T0 + 3, TURN_A),
  ];
  const turnAItems = [user('u-a', 'first', T0 + 2), agent('m-a', 'partial', T0 + 3)];
  const turnsOf = (lines: string[]): Turn[] => parseRollout(`${[head, ...lines].join('\n')}\n`).turns;

  test('a turn with no terminal event is reported interrupted', () => {
    expect(turnsOf(turnA)).toEqual([
      turn(TURN_A, { items: turnAItems, status: 'interrupted', startedAt: SEC }),
    ]);
  });

  test('a turn cut off by the next task_started is reported interrupted', () => {
    const turnB = [
      taskStarted(TURN_B, SEC + 1, T0 + 1000),
      taskComplete({ turnId: TURN_B, lastAgentMessage: null, startedAtSec: SEC + 1, completedAtSec: SEC + 2, durationMs: 900 }, T0 + 1900),
    ];
    expect(turnsOf([...turnA, ...turnB])).toEqual([
      turn(TURN_A, { items: turnAItems, status: 'interrupted', startedAt: SEC }),
      turn(TURN_B, { status: 'completed', startedAt: SEC + 1, completedAt: SEC + 2, durationMs: 900 }),
    ]);
  });

  test('turn_aborted marks the turn interrupted with its completion time and no error, keeping its completed items', () => {
    const aborted = turnAborted(
      { turnId: TURN_A, reason: 'interrupted', startedAtSec: SEC, completedAtSec: SEC + 3, durationMs: 2500 },
      T0 + 2500,
    );
    expect(turnsOf([...turnA, aborted])).toEqual([
      turn(TURN_A, { items: turnAItems, status: 'interrupted', startedAt: SEC, completedAt: SEC + 3, durationMs: 2500 }),
    ]);
  });

  test('a task_complete carrying an error fails the turn, as 0.171.0 writes it', () => {
    const failed = turnFailed(
      {
        turnId: TURN_A,
        message: 'upstream 500',
        codexErrorInfo: 'internal_server_error',
        lastAgentMessage: null,
        startedAtSec: SEC,
        completedAtSec: SEC + 1,
        durationMs: 700,
      },
      T0 + 700,
    );
    expect(turnsOf([...turnA, ...failed])).toEqual([
      turn(TURN_A, {
        items: turnAItems,
        status: 'failed',
        error: { message: 'upstream 500', codexErrorInfo: 'internalServerError', additionalDetails: null, misalignment: null },
        startedAt: SEC,
        completedAt: SEC + 1,
        durationMs: 700,
      }),
    ]);
  });

  test('a failed task_complete that names an earlier turn fails that turn, not the open one', () => {
    const turnB = [taskStarted(TURN_B, SEC + 1, T0 + 1000)];
    const [lateFailure] = turnFailed(
      { turnId: TURN_A, message: 'late', lastAgentMessage: null, startedAtSec: SEC, completedAtSec: SEC + 2, durationMs: 1500 },
      T0 + 1500,
    );
    const doneB = taskComplete({ turnId: TURN_B, lastAgentMessage: null, startedAtSec: SEC + 1, completedAtSec: SEC + 2, durationMs: 900 }, T0 + 1900);
    expect(turnsOf([...turnA, ...turnB, lateFailure as string, doneB])).toEqual([
      turn(TURN_A, {
        items: turnAItems,
        status: 'failed',
        error: { message: 'late', codexErrorInfo: 'other', additionalDetails: null, misalignment: null },
        startedAt: SEC,
        completedAt: SEC + 2,
        durationMs: 1500,
      }),
      turn(TURN_B, { status: 'completed', startedAt: SEC + 1, completedAt: SEC + 2, durationMs: 900 }),
    ]);
  });

  test('an older release\'s error event fails the turn and the plain task_complete after it keeps it failed', () => {
    const error = JSON.stringify({
      timestamp: new Date(T0 + 5).toISOString(),
      type: 'event_msg',
      payload: { type: 'error', message: 'stream broke', codex_error_info: 'other' },
    });
    const done = taskComplete({ turnId: TURN_A, lastAgentMessage: null, startedAtSec: SEC, completedAtSec: SEC + 1, durationMs: 700 }, T0 + 700);
    expect(turnsOf([...turnA, error, done])).toEqual([
      turn(TURN_A, {
        items: turnAItems,
        status: 'failed',
        error: { message: 'stream broke', codexErrorInfo: 'other', additionalDetails: null, misalignment: null },
        startedAt: SEC,
        completedAt: SEC + 1,
        durationMs: 700,
      }),
    ]);
  });

  test('a reference error with a structured kind is reported by the kind name in camelCase', () => {
    const error = JSON.stringify({
      timestamp: new Date(T0 + 5).toISOString(),
      type: 'event_msg',
      payload: { type: 'error', message: 'disconnected', codex_error_info: { response_stream_disconnected: { http_status_code: 503 } } },
    });
    const [only] = turnsOf([...turnA, error]);
    expect(only).toEqual(
      turn(TURN_A, {
        items: turnAItems,
        status: 'failed',
        error: { message: 'disconnected', codexErrorInfo: 'responseStreamDisconnected', additionalDetails: null, misalignment: null },
        startedAt: SEC,
      }),
    );
  });

  test('errors the reference does not count as turn failures leave the turn alone', () => {
    const error = JSON.stringify({
      timestamp: new Date(T0 + 5).toISOString(),
      type: 'event_msg',
      payload: { type: 'error', message: 'busy', codex_error_info: { active_turn_not_steerable: { turn_kind: 'compact' } } },
    });
    const done = taskComplete({ turnId: TURN_A, lastAgentMessage: 'partial', startedAtSec: SEC, completedAtSec: SEC, durationMs: 6 }, T0 + 6);
    expect(turnsOf([...turnA, error, done])).toEqual([
      turn(TURN_A, { items: turnAItems, status: 'completed', startedAt: SEC, completedAt: SEC, durationMs: 6 }),
    ]);
  });

  test('a legacy agent message whose response item never arrived gets a positional id', () => {
    const lines = [
      taskStarted(TURN_A, SEC, T0 + 1),
      ...userMessage(user('u-a', 'first', T0 + 2), T0 + 2, TURN_A),
      (agentMessage(agent('lost', 'partial', T0 + 3), T0 + 3) as [string, string])[0],
    ];
    expect(turnsOf(lines)).toEqual([
      turn(TURN_A, { items: [user('u-a', 'first', T0 + 2), agent('item-1', 'partial', T0 + 3)], status: 'interrupted', startedAt: SEC }),
    ]);
  });

  test('harness-injected user messages without content kinds are not replayed to the model', () => {
    const context = JSON.stringify({
      timestamp: new Date(T0 + 1).toISOString(),
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n</environment_context>' }] },
    });
    const plain = JSON.stringify({
      timestamp: new Date(T0 + 2).toISOString(),
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
    });
    expect(parseRollout(`${[head, context, plain].join('\n')}\n`).messages).toEqual([{ role: 'user', text: 'hi' }]);
  });
});
