// A queued submission for tests of the queue's mirror: text input named after its id by default.
import type { QueuedSubmission } from '../../src/common/codex-db/codex-state-changes.js';

export const queuedSubmission = (id: string, input: QueuedSubmission['input'] = [{ type: 'text', text: id, text_elements: [] }]): QueuedSubmission => ({
  id,
  input,
  clientUserMessageId: `client-${id}`,
  responsesapiClientMetadata: null,
});
