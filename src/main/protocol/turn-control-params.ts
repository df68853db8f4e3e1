// The params of the methods that steer a thread's turns: thread/compact/start, turn/steer and
// the thread/queue/* family, as typed decoders declaring every field of the reference's
// structs (codex 0.171.0, test/fixtures/schema-experimental), the unused ones `checked`.
import type { UserInput } from '../../common/wire-types.js';
import { arrayOf, mapOf, optional, string, u32, type Decoder } from './decode.js';
import { checked, shape, struct } from './decode-struct.js';
import { userInput } from './user-input.js';

const optionalString = optional(string);
const inputs = arrayOf(userInput) as Decoder<UserInput[]>;
const metadata = checked(optional(mapOf(string)));

export const threadCompactStartParams = struct('ThreadCompactStartParams', { threadId: string });

export const turnSteerParams = struct('TurnSteerParams', {
  threadId: string,
  clientUserMessageId: optionalString,
  input: inputs,
  responsesapiClientMetadata: metadata,
  responsesapiClientMetadataPatch: metadata,
  additionalContext: checked(optional(mapOf(shape('AdditionalContextEntry')))),
  expectedTurnId: string,
});

export const threadQueueAddParams = struct('ThreadQueueAddParams', {
  threadId: string,
  clientUserMessageId: string,
  input: inputs,
  responsesapiClientMetadata: optional(mapOf(string)),
});

export const threadQueueListParams = struct('ThreadQueueListParams', { threadId: string, cursor: optionalString, limit: optional(u32) });

export const threadQueueUpdateParams = struct('ThreadQueueUpdateParams', {
  threadId: string,
  queuedSubmissionId: string,
  input: inputs,
  responsesapiClientMetadata: optional(mapOf(string)),
});

export const threadQueueDeleteParams = struct('ThreadQueueDeleteParams', { threadId: string, queuedSubmissionId: string });

export const threadQueueReorderParams = struct('ThreadQueueReorderParams', { threadId: string, queuedSubmissionIds: arrayOf(string) });

export const threadQueueStartParams = struct('ThreadQueueStartParams', { threadId: string, queuedSubmissionId: optionalString });
