import { describe, expect, test } from 'vitest';
import { DecodeError, type Decoder } from '../../../../src/main/protocol/decode.js';
import {
  initializeParams,
  threadListParams,
  threadLoadedListParams,
  threadResumeParams,
  threadStartParams,
  turnStartParams,
} from '../../../../src/main/protocol/method-params.js';

const THREAD = '019a0000-0000-7000-8000-000000000001';

function outcome<T>(decode: Decoder<T>, value: unknown): { value: T } | { error: string } {
  try {
    return { value: decode(value) };
  } catch (error) {
    if (!(error instanceof DecodeError)) throw error;
    return { error: error.detail };
  }
}

/** turnStartParams with every optional field absent. */
const turnDefaults = {
  clientUserMessageId: null,
  cwd: null,
  approvalPolicy: null,
  approvalsReviewer: null,
  model: null,
  effort: null,
  outputSchema: null,
};

describe('turnStartParams', () => {
  test('input that is not an array is refused', () => {
    expect(outcome(turnStartParams, { threadId: THREAD, input: 'hello' })).toEqual({ error: 'invalid type: string "hello", expected a sequence' });
  });

  test('an input item without a type is refused', () => {
    expect(outcome(turnStartParams, { threadId: THREAD, input: [{ text: 'hi' }] })).toEqual({ error: 'missing field `type`' });
  });

  test('a text item whose text is not a string is refused', () => {
    expect(outcome(turnStartParams, { threadId: THREAD, input: [{ type: 'text', text: 5 }] })).toEqual({
      error: 'invalid type: integer `5`, expected a string',
    });
  });

  test('a text item without text is refused', () => {
    expect(outcome(turnStartParams, { threadId: THREAD, input: [{ type: 'text' }] })).toEqual({ error: 'missing field `text`' });
  });

  test('an unknown input type lists every variant', () => {
    expect(outcome(turnStartParams, { threadId: THREAD, input: [{ type: 'bogus' }] })).toEqual({
      error: 'unknown variant `bogus`, expected one of `text`, `image`, `localImage`, `audio`, `localAudio`, `skill`, `mention`',
    });
  });

  test('a missing input is a missing field', () => {
    expect(outcome(turnStartParams, { threadId: THREAD })).toEqual({ error: 'missing field `input`' });
  });

  test('text_elements defaults to [] and unknown keys inside an item are dropped', () => {
    expect(outcome(turnStartParams, { threadId: THREAD, input: [{ type: 'text', text: 'hi', extra: 1 }] })).toEqual({
      value: { threadId: THREAD, input: [{ type: 'text', text: 'hi', text_elements: [] }], ...turnDefaults },
    });
  });

  test('text_elements are decoded into byteRange and placeholder', () => {
    const input = [
      {
        type: 'text',
        text: 'hi @file',
        text_elements: [{ byteRange: { start: 3, end: 8 } }, { byteRange: { start: 0, end: 2 }, placeholder: 'x' }],
      },
    ];
    expect(outcome(turnStartParams, { threadId: THREAD, input, model: 'o3' })).toEqual({
      value: {
        threadId: THREAD,
        input: [
          {
            type: 'text',
            text: 'hi @file',
            text_elements: [
              { byteRange: { start: 3, end: 8 }, placeholder: null },
              { byteRange: { start: 0, end: 2 }, placeholder: 'x' },
            ],
          },
        ],
        ...turnDefaults,
        model: 'o3',
      },
    });
  });

  test('a bad byte range reports the field serde would', () => {
    expect(
      outcome(turnStartParams, { threadId: THREAD, input: [{ type: 'text', text: 'a', text_elements: [{ byteRange: { start: -1, end: 1 } }] }] }),
    ).toEqual({ error: 'invalid value: integer `-1`, expected usize' });
  });

  test('images are echoed as the reference echoes them, other non-text items as sent', () => {
    const image = { type: 'image', url: 'https://example.com/a.png' };
    const local = { path: '/tmp/a.png', type: 'localImage' };
    const mention = { type: 'mention', name: 'a', path: '/a' };
    const decoded = outcome(turnStartParams, { threadId: THREAD, input: [image, local, mention] });
    expect(decoded).toEqual({
      value: { threadId: THREAD, input: [{ ...image, detail: null }, { type: 'localImage', detail: null, path: '/tmp/a.png' }, mention], ...turnDefaults },
    });
    // Key order too: the echo is serialized as decoded.
    expect(JSON.stringify((decoded as { value: { input: unknown[] } }).value.input)).toBe(
      '[{"type":"image","url":"https://example.com/a.png","detail":null},{"type":"localImage","detail":null,"path":"/tmp/a.png"},{"type":"mention","name":"a","path":"/a"}]',
    );
  });

  test('an approval policy is a known name or a granular object', () => {
    expect([
      outcome(turnStartParams, { threadId: THREAD, input: [], approvalPolicy: 'never' }),
      outcome(turnStartParams, { threadId: THREAD, input: [], approvalPolicy: 'sometimes' }),
    ]).toEqual([
      { value: { threadId: THREAD, input: [], ...turnDefaults, approvalPolicy: 'never' } },
      { error: 'unknown variant `sometimes`, expected one of `untrusted`, `on-request`, `granular`, `never`' },
    ]);
  });
});

describe('the other method params', () => {
  test('thread/start with nothing set decodes every field to null', () => {
    expect(outcome(threadStartParams, {})).toEqual({
      value: {
        model: null,
        modelProvider: null,
        serviceTier: null,
        cwd: null,
        approvalPolicy: null,
        approvalsReviewer: null,
        sandbox: null,
        permissions: null,
        config: null,
        baseInstructions: null,
        developerInstructions: null,
        personality: null,
        serviceName: null,
        ephemeral: null,
        historyMode: null,
        sessionStartSource: null,
        threadSource: null,
        dynamicTools: null,
      },
    });
  });

  test('thread/start refuses an unknown sandbox mode', () => {
    expect(outcome(threadStartParams, { sandbox: 'none' })).toEqual({
      error: 'unknown variant `none`, expected one of `read-only`, `workspace-write`, `danger-full-access`',
    });
  });

  test('thread/resume defaults excludeTurns to false and every override to null', () => {
    expect(outcome(threadResumeParams, { threadId: THREAD, model: null })).toEqual({
      value: {
        threadId: THREAD,
        excludeTurns: false,
        model: null,
        modelProvider: null,
        serviceTier: null,
        cwd: null,
        approvalPolicy: null,
        approvalsReviewer: null,
        sandbox: null,
        config: null,
        baseInstructions: null,
        developerInstructions: null,
        personality: null,
      },
    });
  });

  test('initialize requires clientInfo and its name and version', () => {
    expect([
      outcome(initializeParams, {}),
      outcome(initializeParams, { clientInfo: { name: 'c' } }),
      outcome(initializeParams, { clientInfo: { name: 'c', version: '1' }, capabilities: {} }),
    ]).toEqual([
      { error: 'missing field `clientInfo`' },
      { error: 'missing field `version`' },
      {
        value: {
          clientInfo: { name: 'c', version: '1', title: null },
          capabilities: { experimentalApi: false, optOutNotificationMethods: null },
        },
      },
    ]);
  });

  test('thread/loaded/list accepts a cursor and a limit', () => {
    expect(outcome(threadLoadedListParams, { cursor: THREAD, limit: 0 })).toEqual({ value: { cursor: THREAD, limit: 0 } });
  });

  test('thread/list takes cwd as one string or a list of strings', () => {
    const base = {
      cursor: null,
      limit: null,
      includedThreadIds: null,
      excludedThreadIds: null,
      sortKey: null,
      sortDirection: null,
      modelProviders: null,
      sourceKinds: null,
      originators: null,
      archived: null,
      sectionId: null,
      searchTerm: null,
    };
    expect([outcome(threadListParams, { cwd: '/a' }), outcome(threadListParams, { cwd: ['/a', '/b'] }), outcome(threadListParams, { cwd: 1 })]).toEqual([
      { value: { ...base, cwd: ['/a'] } },
      { value: { ...base, cwd: ['/a', '/b'] } },
      { error: 'data did not match any variant of untagged enum ThreadListCwdFilter' },
    ]);
  });
});
