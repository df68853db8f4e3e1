// The params of every method this host serves, as typed decoders. Decoding happens once,
// at the edge (router), with serde's wording for failures.
import {
  anyValue,
  arrayOf,
  boolean,
  jsonObject,
  oneOf,
  optional,
  string,
  struct,
  u32,
  unknownVariant,
  withDefault,
  DecodeError,
  describeUnexpected,
  type Decoder,
} from './decode.js';
import type { TextElement, UserInput } from '../../actors/thread-types.js';

const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
const APPROVALS_REVIEWERS = ['user', 'auto_review', 'guardian_subagent'] as const;
const APPROVAL_POLICIES = ['untrusted', 'on-failure', 'on-request', 'never'] as const;
const USER_INPUT_TYPES = ['text', 'image', 'localImage', 'audio', 'localAudio', 'skill', 'mention'] as const;

/** `AskForApproval`: a policy name, or the granular object (kept as sent). */
const approvalPolicy: Decoder<unknown> = (value) =>
  typeof value === 'string' ? oneOf(APPROVAL_POLICIES)(value) : jsonObject(value);

const textElement: Decoder<TextElement> = (value) => {
  const decoded = struct('TextElement', {
    byteRange: struct('ByteRange', { start: u32, end: u32 }),
    placeholder: optional(string),
  })(value);
  return { byteRange: decoded.byteRange, placeholder: decoded.placeholder };
};

/** `UserInput`, internally tagged on `type`; text is decoded fully, the rest kept as sent. */
const userInput: Decoder<UserInput> = (value) => {
  const object = jsonObject(value);
  if (!('type' in object)) throw new DecodeError('missing field `type`');
  const type = object.type;
  if (typeof type !== 'string') throw new DecodeError(`invalid type: ${describeUnexpected(type)}, expected variant identifier`);
  if (!(USER_INPUT_TYPES as readonly string[]).includes(type)) throw unknownVariant(type, USER_INPUT_TYPES);
  if (type === 'text') {
    const text = struct('TextUserInput', {
      text: string,
      text_elements: withDefault(arrayOf(textElement), () => []),
    })(object);
    return { type: 'text', text: text.text, text_elements: text.text_elements };
  }
  return object as UserInput;
};

const sessionOverrides = {
  model: optional(string),
  modelProvider: optional(string),
  serviceTier: optional(string),
  cwd: optional(string),
  approvalPolicy: optional(approvalPolicy),
  approvalsReviewer: optional(oneOf(APPROVALS_REVIEWERS)),
  sandbox: optional(oneOf(SANDBOX_MODES)),
  config: optional(jsonObject),
  baseInstructions: optional(string),
  developerInstructions: optional(string),
  personality: optional(anyValue),
};

export const initializeParams = struct('InitializeParams', {
  clientInfo: struct('ClientInfo', { name: string, version: string, title: optional(string) }),
  capabilities: optional(
    struct('InitializeCapabilities', {
      experimentalApi: withDefault(boolean, () => false),
      optOutNotificationMethods: optional(arrayOf(string)),
    }),
  ),
});

export const threadStartParams = struct('ThreadStartParams', {
  ...sessionOverrides,
  serviceName: optional(string),
  ephemeral: optional(boolean),
  sessionStartSource: optional(anyValue),
  threadSource: optional(anyValue),
});

export const threadResumeParams = struct('ThreadResumeParams', {
  threadId: string,
  excludeTurns: withDefault(boolean, () => false),
  ...sessionOverrides,
});

export const turnStartParams = struct('TurnStartParams', {
  threadId: string,
  input: arrayOf(userInput),
  clientUserMessageId: optional(string),
  cwd: optional(string),
  approvalPolicy: optional(approvalPolicy),
  approvalsReviewer: optional(oneOf(APPROVALS_REVIEWERS)),
  model: optional(string),
  effort: optional(string),
  outputSchema: optional(anyValue),
});

export const turnInterruptParams = struct('TurnInterruptParams', { threadId: string, turnId: string });

export const threadIdParams = struct('ThreadUnsubscribeParams', { threadId: string });

export const threadReadParams = struct('ThreadReadParams', {
  threadId: string,
  includeTurns: withDefault(boolean, () => false),
});

export const threadLoadedListParams = struct('ThreadLoadedListParams', {
  cursor: optional(string),
  limit: optional(u32),
});

export const threadListParams = struct('ThreadListParams', {
  cursor: optional(string),
  limit: optional(u32),
  sortKey: optional(oneOf(['created_at', 'updated_at', 'recency_at', 'section_position'] as const)),
  sortDirection: optional(oneOf(['asc', 'desc'] as const)),
  modelProviders: optional(arrayOf(string)),
  sourceKinds: optional(arrayOf(string)),
  archived: optional(boolean),
  cwd: optional((value: unknown) => (Array.isArray(value) ? arrayOf(string)(value) : [string(value)])),
  searchTerm: optional(string),
});
