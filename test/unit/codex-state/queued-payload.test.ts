// The payload thread-host writes for a queued input is the one codex-cli 0.171.0 stored for the
// same thread/queue/add, for every input kind and metadata shape it stores as given
// (test/fixtures/codex-state-db/input-kinds.json).
import { expect, test } from 'vitest';
import { queuedPayload } from '../../../src/codex-state/queued-payload.js';
import { stateFixture } from '../../helpers/reference-state-db.js';

interface Kind {
  params: { clientUserMessageId: string; input: never[]; responsesapiClientMetadata?: Record<string, string> | null };
  answer: { queuedSubmission: { id: string } };
  payload_json: string;
}

const { kinds } = stateFixture<{ kinds: Kind[] }>('input-kinds.json');

test.each(kinds.map((kind) => [kind.payload_json, kind] as const))('%s', (payload, { params, answer }) => {
  const submission = { id: answer.queuedSubmission.id, input: params.input, clientUserMessageId: params.clientUserMessageId, responsesapiClientMetadata: params.responsesapiClientMetadata ?? null };
  expect(queuedPayload(submission)).toEqual({ kind: 'payload', json: payload });
});
