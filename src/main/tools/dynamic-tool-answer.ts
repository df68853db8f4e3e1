// What a client's answer to `item/tool/call` becomes, as the reference (codex 0.171.0,
// app-server dynamic_tools.rs) makes it: the finished item the client and the history see, and
// the `function_call_output` the model is given. A failed request, an answer that does not
// decode, or a remote image turn into the reference's replacement texts; the turn goes on.
import type { DynamicToolCallItem, DynamicToolContentItem } from '../../common/wire-types.js';
import type { ClientAnswer } from '../server-requests/server-requests.js';

/** The answer, decoded, or the text that stands for it. */
export interface DecodedToolAnswer {
  contentItems: DynamicToolContentItem[];
  success: boolean;
  /** The model's output when it is not made of the content items (a cancelled call's). */
  output?: string;
}

const REQUEST_FAILED = 'dynamic tool request failed';
const CANCELLED = 'dynamic tool call was cancelled before receiving a response';
const RESPONSE_INVALID = 'dynamic tool response was invalid';
const REMOTE_IMAGE = 'remote image URLs are not supported; use an inline data URL instead';
const AUDIO_OMITTED = 'audio content omitted because you do not support audio input';

/** Decodes a client's answer (DynamicToolCallResponse), or the failure text the reference puts in its place. */
export function decodeToolAnswer(answer: ClientAnswer): DecodedToolAnswer & { problem: string | null } {
  if (answer.kind === 'error') return failure(REQUEST_FAILED, 'request failed with client error');
  // Cancelled (the turn was interrupted, or every client left and none came back in time): the
  // item shows no content; the model and the history are told why.
  if (answer.kind !== 'result') return { contentItems: [], success: false, problem: answer.kind, output: CANCELLED };
  const result = answer.result;
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return failure(RESPONSE_INVALID, 'expected struct DynamicToolCallResponse');
  const { contentItems, success } = result as Record<string, unknown>;
  if (!Array.isArray(contentItems)) return failure(RESPONSE_INVALID, contentItems === undefined ? 'missing field `contentItems`' : 'expected a sequence');
  if (typeof success !== 'boolean') return failure(RESPONSE_INVALID, success === undefined ? 'missing field `success`' : 'expected a boolean');
  const items: DynamicToolContentItem[] = [];
  for (const raw of contentItems) {
    const item = contentItemOf(raw);
    if (item === null) return failure(RESPONSE_INVALID, 'a content item did not decode');
    // `data:` in any case is inline, as the reference reads it; its image is prepared in the worker.
    if (item.type === 'inputImage' && item.imageUrl.slice(0, 5).toLowerCase() !== 'data:') return failure(REMOTE_IMAGE, 'a remote image URL');
    items.push(item);
  }
  return { contentItems: items, success, problem: null };
}

function failure(text: string, problem: string): DecodedToolAnswer & { problem: string } {
  return { contentItems: [{ type: 'inputText', text }], success: false, problem };
}

function contentItemOf(raw: unknown): DynamicToolContentItem | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const item = raw as Record<string, unknown>;
  if (item.type === 'inputText' && typeof item.text === 'string') return { type: 'inputText', text: item.text };
  if (item.type === 'inputImage' && typeof item.imageUrl === 'string') return { type: 'inputImage', imageUrl: item.imageUrl };
  if (item.type === 'inputAudio' && typeof item.audioUrl === 'string') return { type: 'inputAudio', audioUrl: item.audioUrl };
  return null;
}

/** The finished item. */
export function completedToolItem(started: DynamicToolCallItem, decoded: DecodedToolAnswer, completedAtMs: number): DynamicToolCallItem {
  return {
    ...started,
    status: decoded.success ? 'completed' : 'failed',
    contentItems: decoded.contentItems,
    success: decoded.success,
    durationMs: completedAtMs - (started.startedAtMs ?? completedAtMs),
    completedAtMs,
  };
}

/**
 * The `function_call_output.output` the history keeps, and the one the model is given (they
 * differ only for audio, which the model is told it cannot hear). One text alone is a plain
 * string; anything else is a list of content items.
 */
export function toolOutputOf(items: readonly DynamicToolContentItem[]): { recorded: string | unknown[]; model: string | unknown[] } {
  const only = items.length === 1 ? items[0]! : null;
  if (only?.type === 'inputText') return { recorded: only.text, model: only.text };
  const recorded = items.map((item) => responsesPart(item, false));
  if (!items.some((item) => item.type === 'inputAudio')) return { recorded, model: recorded };
  return { recorded, model: items.map((item) => responsesPart(item, true)) };
}

function responsesPart(item: DynamicToolContentItem, forModel: boolean): unknown {
  switch (item.type) {
    case 'inputText':
      return { type: 'input_text', text: item.text };
    case 'inputImage':
      return { type: 'input_image', image_url: item.imageUrl, detail: 'high' };
    case 'inputAudio':
      return forModel ? { type: 'input_text', text: AUDIO_OMITTED } : { type: 'input_audio', audio_url: item.audioUrl };
  }
}
