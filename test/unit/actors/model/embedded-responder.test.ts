import { expect, test } from 'vitest';
import { EmbeddedResponder, deltaChunks } from '../../../../src/actors/model/embedded-responder.js';
import { EMBEDDED_MODEL, EMBEDDED_PROVIDER_ID } from '../../../../src/common/model-provider.js';
import { ModelAbortedError, type ModelEvent, type ModelRequest } from '../../../../src/actors/model/model-client.js';
import { COMPACTION_PROMPT, summaryMessage } from '../../../../src/common/rollout/compaction.js';

function makeRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: EMBEDDED_MODEL,
    baseInstructions: 'ignored by the echo',
    developerInstructions: null,
    history: [],
    userText: 'Hello there',
    effort: null,
    outputSchema: null,
    threadId: 'thread-1',
    turnId: 'turn-1',
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function collect(request: ModelRequest): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of new EmbeddedResponder().stream(request)) events.push(event);
  return events;
}

test('the embedded provider and model have fixed names', () => {
  expect({ EMBEDDED_PROVIDER_ID, EMBEDDED_MODEL }).toEqual({ EMBEDDED_PROVIDER_ID: 'embedded', EMBEDDED_MODEL: 'thread-host-echo' });
});

test('a first turn echoes the user word by word and counts words as tokens', async () => {
  expect(await collect(makeRequest())).toEqual([
    { type: 'messageStarted', itemId: 'msg-embedded-1' },
    { type: 'textDelta', itemId: 'msg-embedded-1', delta: 'You ' },
    { type: 'textDelta', itemId: 'msg-embedded-1', delta: 'said: ' },
    { type: 'textDelta', itemId: 'msg-embedded-1', delta: 'Hello ' },
    { type: 'textDelta', itemId: 'msg-embedded-1', delta: 'there' },
    { type: 'messageDone', itemId: 'msg-embedded-1', text: 'You said: Hello there' },
    {
      type: 'completed',
      responseId: 'resp-embedded-1',
      usage: { inputTokens: 2, cachedInputTokens: 0, outputTokens: 4, reasoningOutputTokens: 0, totalTokens: 6 },
    },
  ]);
});

test('a later turn numbers the message and packs a long reply into eight deltas', async () => {
  const events = await collect(makeRequest({
    history: [
      { role: 'user', text: 'Hi' },
      { role: 'assistant', text: 'You said: Hi' },
      { role: 'user', text: 'How are you' },
      { role: 'assistant', text: 'You said: How are you (message 2 in this thread)' },
    ],
    userText: 'Tell me a long story about the sea please',
  }));
  const itemId = 'msg-embedded-3';
  expect(events).toEqual([
    { type: 'messageStarted', itemId },
    { type: 'textDelta', itemId, delta: 'You said: ' },
    { type: 'textDelta', itemId, delta: 'Tell me ' },
    { type: 'textDelta', itemId, delta: 'a long ' },
    { type: 'textDelta', itemId, delta: 'story about ' },
    { type: 'textDelta', itemId, delta: 'the sea ' },
    { type: 'textDelta', itemId, delta: 'please (message ' },
    { type: 'textDelta', itemId, delta: '3 in ' },
    { type: 'textDelta', itemId, delta: 'this thread)' },
    { type: 'messageDone', itemId, text: 'You said: Tell me a long story about the sea please (message 3 in this thread)' },
    {
      type: 'completed',
      responseId: 'resp-embedded-3',
      usage: { inputTokens: 26, cachedInputTokens: 0, outputTokens: 16, reasoningOutputTokens: 0, totalTokens: 42 },
    },
  ]);
});

test('uneven word counts put the extra words in the first deltas and keep all whitespace', () => {
  const text = 'one  two\tthree\nfour five six seven eight nine ten';
  const chunks = deltaChunks(text);
  expect(chunks).toEqual(['one  two\t', 'three\nfour ', 'five ', 'six ', 'seven ', 'eight ', 'nine ', 'ten']);
  expect(chunks.join('')).toEqual(text);
});

test('an abort between deltas stops the reply with ModelAbortedError', async () => {
  const controller = new AbortController();
  const events: ModelEvent[] = [];
  const run = async (): Promise<void> => {
    for await (const event of new EmbeddedResponder().stream(makeRequest({ signal: controller.signal }))) {
      events.push(event);
      controller.abort();
    }
  };
  await expect(run()).rejects.toThrowError(ModelAbortedError);
  expect(events).toEqual([{ type: 'messageStarted', itemId: 'msg-embedded-1' }]);
});

test('an already aborted signal yields nothing', async () => {
  const controller = new AbortController();
  controller.abort();
  await expect(collect(makeRequest({ signal: controller.signal }))).rejects.toThrowError(new ModelAbortedError());
});

test('asked for a compaction summary, it lists what the user said, an earlier summary included', async () => {
  const history = [
    { role: 'user' as const, text: 'first' },
    { role: 'user' as const, text: summaryMessage('The user said: "zero".') },
    { role: 'assistant' as const, text: 'You said: first' },
    { role: 'user' as const, text: 'second' },
  ];
  const events = await collect(makeRequest({ history, userText: COMPACTION_PROMPT }));
  const done = events.find((event) => event.type === 'messageDone');
  expect(done).toEqual({ type: 'messageDone', itemId: 'msg-embedded-3', text: 'The user said: "first", "zero", "second".' });
  const empty = (await collect(makeRequest({ userText: COMPACTION_PROMPT }))).find((event) => event.type === 'messageDone');
  expect(empty).toEqual({ type: 'messageDone', itemId: 'msg-embedded-1', text: 'Nothing was said in this thread yet.' });
});
