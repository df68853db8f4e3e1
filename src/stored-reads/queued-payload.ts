// The `payload_json` codex 0.171.0 stores for a queued input (queued_items, queue_1.sqlite):
//   {"UserInput":{"content":[<core UserInput>…],"client_id":"…","responsesapi_client_metadata":{…}}}
// the metadata left out when there is none, each input in codex's core form: text as
// {"type":"text","text":…,"text_elements":[{"byte_range":{"start":…,"end":…},"placeholder":…}]},
// an image as {"type":"image","image_url":…} (test/fixtures/codex-state-db/steps.json). Only
// the shapes measured against the binary are written; for any other (a local image, which the
// reference checks on disk; a skill, a mention; a text element without a placeholder; metadata
// that is empty or has more than one key, whose order the reference's map decides) there is
// no row thread-host can be sure of, so it writes none.
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
  if (metadata !== null && Object.keys(metadata).length !== 1) {
    return { kind: 'unknown', reason: `queued input with ${Object.keys(metadata).length} metadata entries (the reference's order of them is not known)` };
  }
  const userInput = { content, client_id: submission.clientUserMessageId, ...(metadata === null ? {} : { responsesapi_client_metadata: metadata }) };
  return { kind: 'payload', json: JSON.stringify({ UserInput: userInput }) };
}

/** The input in codex's core form, or why it has none this host is sure of. */
function coreInput(input: UserInput): unknown {
  switch (input.type) {
    case 'text': {
      const elements: unknown[] = [];
      for (const element of input.text_elements) {
        if (typeof element.placeholder !== 'string') return 'queued text whose element has no placeholder';
        elements.push({ byte_range: { start: element.byteRange.start, end: element.byteRange.end }, placeholder: element.placeholder });
      }
      return { type: 'text', text: input.text, text_elements: elements };
    }
    case 'image':
      return { type: 'image', image_url: input.url };
    default:
      return `queued input of type ${input.type}`;
  }
}
