// The request body's input: a message with parts is sent as its parts, an image the history
// keeps at detail "original" as "high", as codex 0.171.0 tells a model it has no metadata for
// (probed: docs/tools.md, "Images"), in the last message and in the replayed ones alike.
import { expect, test } from 'vitest';
import { buildResponsesBody } from '../../../../src/actors/model/responses-body.js';

test('parts go as they are, an original image as high', () => {
  const image = (detail: string) => ({ type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail });
  const body = buildResponsesBody({
    model: 'm', baseInstructions: null, developerInstructions: null, effort: null, outputSchema: null, threadId: 't', turnId: 'u',
    signal: new AbortController().signal,
    history: [{ role: 'user', text: 'a', parts: [{ type: 'input_text', text: 'a' }, image('original')] }, { role: 'assistant', text: 'ok' }],
    userText: '',
    userParts: [image('original'), image('auto'), image('high')],
  });
  expect(body.input).toEqual([
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'a' }, image('high')] },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] },
    { type: 'message', role: 'user', content: [image('high'), image('auto'), image('high')] },
  ]);
});
