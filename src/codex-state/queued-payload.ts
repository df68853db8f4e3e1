// The `payload_json` codex 0.171.0 stores for a queued input (queued_items, queue_1.sqlite):
//   {"UserInput":{"content":[<core UserInput>…],"client_id":"…","responsesapi_client_metadata":{…}}}
// the metadata left out when there is none, each input in codex's core form: text as
// {"type":"text","text":…,"text_elements":[{"byte_range":{"start":…,"end":…},"placeholder":…|null}]},
// an image as {"type":"image","image_url":…[,"detail":…]}, a skill or a mention as the wire has
// it (test/fixtures/codex-state-db/input-kinds.json). Where the reference's row is not one
// thread-host can be sure of, it writes none: a local image (the reference reads the file and
// stores an image of its bytes), and metadata of more than one entry (the reference stores
// them in its hash map's order, which differs from run to run).
import type { QueuedSubmission } from '../common/codex-db/codex-state-changes.js';
import type { UserInput } from '../common/wire-types.js';

export type QueuedPayload = { kind: 'payload'; json: string } | { kind: 'unknown'; reason: string };

export function queuedPayload(submission: QueuedSubmission): QueuedPayload {
  const content: unknown[] = [];
  for (const input of submission.input) {
    const core = coreInput(input);
    if (typeof core === 'string') return { kind: 'unknown', reason: core };
    content.push(core);
  }
  const metadata = submission.responsesapiClientMetadata;
  if (metadata !== null && Object.keys(metadata).length > 1) {
    return { kind: 'unknown', reason: `queued input with ${Object.keys(metadata).length} metadata entries (the reference stores them in no fixed order)` };
  }
  const userInput = { content, client_id: submission.clientUserMessageId, ...(metadata === null ? {} : { responsesapi_client_metadata: metadata }) };
  return { kind: 'payload', json: JSON.stringify({ UserInput: userInput }) };
}

/** The input in codex's core form, or why it has none this host is sure of. */
function coreInput(input: UserInput): unknown {
  switch (input.type) {
    case 'text':
      return {
        type: 'text',
        text: input.text,
        text_elements: input.text_elements.map((element) => ({ byte_range: { start: element.byteRange.start, end: element.byteRange.end }, placeholder: element.placeholder })),
      };
    case 'image': {
      // Kept only when the client gave one (the wire's input has no detail otherwise).
      const detail = (input as { detail?: unknown }).detail;
      return { type: 'image', image_url: input.url, ...(typeof detail === 'string' ? { detail } : {}) };
    }
    case 'skill':
    case 'mention':
      return { type: input.type, name: input.name, path: input.path };
    case 'localImage':
      return 'queued local image (the reference stores the bytes of the file it reads then)';
  }
}
