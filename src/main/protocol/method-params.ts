// The params of every method this host serves, as typed decoders. Decoding happens once, at
// the edge (router), with serde's wording for failures. Every field the reference's structs
// declare (codex 0.171.0, experimental ones included, in declaration order) is decoded, so a
// wrong type anywhere gets the reference's error; fields the host does not use are `checked`
// and left out of the result. Error texts are pinned by test/fixtures/bad-input/corpus.jsonl.
import type { UserInput } from '../../common/wire-types.js';
import {
  absolutePath,
  anyValue,
  arrayOf,
  boolean,
  DecodeError,
  describeUnexpected,
  invalidType,
  isJsonObject,
  jsonObject,
  mapOf,
  optional,
  pathString,
  readingOf,
  singleEntry,
  string,
  u32,
  unitEnum,
  untagged,
  variantOf,
  withDefault,
  type Decoder,
} from './decode.js';
import { checked, defaulted, internallyTagged, shape, struct } from './decode-struct.js';
import { toPlainJson, type JsonValue } from '../../common/json-text.js';
import { userInput } from './user-input.js';

const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
const APPROVALS_REVIEWERS = ['user', 'auto_review', 'guardian_subagent'] as const;
const APPROVAL_POLICIES = ['untrusted', 'on-request', 'granular', 'never'] as const;
const PERSONALITIES = ['none', 'friendly', 'pragmatic'] as const;
const MULTI_AGENT_MODES = ['none', 'custom', 'explicitRequestOnly', 'proactive'] as const;
const SOURCE_KINDS = ['cli', 'vscode', 'exec', 'appServer', 'subAgent', 'subAgentReview', 'subAgentCompact', 'subAgentThreadSpawn', 'subAgentOther', 'unknown'] as const;
const SANDBOX_POLICY_TYPES = ['dangerFullAccess', 'readOnly', 'externalSandbox', 'workspaceWrite'] as const;

const flag = (fallback = false) => withDefault(boolean, () => fallback);
const optionalString = optional(string);

/**
 * `AskForApproval`: a policy name, `{"never": null}`, or the struct variant
 * `{"granular": {…}}` (kept as sent).
 */
const approvalPolicy: Decoder<unknown> = (value) => {
  if (typeof value === 'string') {
    const name = variantOf(value, APPROVAL_POLICIES);
    if (name === 'granular') throw new DecodeError('invalid type: unit variant, expected struct variant');
    return name;
  }
  const [name, inner] = singleEntry(value);
  if (variantOf(name, APPROVAL_POLICIES) !== 'granular') {
    if (inner !== null) throw invalidType(inner, 'unit');
    return name;
  }
  if (isJsonObject(inner) && !('sandbox_approval' in inner)) throw new DecodeError('missing field `sandbox_approval`');
  return toPlainJson(value as JsonValue);
};

/** A non-map item where an internally tagged enum is expected; maps are kept as sent. */
const taggedItem = (enumName: string): Decoder<unknown> => (value) => {
  if (!isJsonObject(value)) throw invalidType(value, `internally tagged enum ${enumName}`);
  return toPlainJson(value as JsonValue);
};

// A dynamic tool goes through serde_json::Value first, which names any number just "number".
const dynamicTool: Decoder<unknown> = (value) => {
  if (isJsonObject(value)) return toPlainJson(value as JsonValue);
  const found = readingOf(value) !== null ? 'number' : describeUnexpected(value);
  throw new DecodeError(`invalid type: ${found}, expected struct LegacyDynamicToolSpec`);
};

const cwdFilter: Decoder<string[]> = untagged<string[]>('ThreadListCwdFilter', [(value) => [string(value)], arrayOf(string)]);

const workspaceRoots = checked(optional(arrayOf(absolutePath)));
const environments = checked(optional(arrayOf(shape('TurnEnvironmentParams'))));

export const initializeParams = struct('InitializeParams', {
  clientInfo: struct('ClientInfo', { name: string, title: optionalString, version: string }),
  capabilities: optional(
    struct('InitializeCapabilities', {
      requiredHumanApproval: checked(flag()),
      explicitGatewayOauth: checked(flag()),
      experimentalApi: flag(),
      requestAttestation: checked(flag()),
      mcpServerOpenaiFormElicitation: checked(flag()),
      optOutNotificationMethods: optional(arrayOf(string)),
      extensions: checked(optional(jsonObject)),
    }),
  ),
});

export const threadStartParams = struct('ThreadStartParams', {
  model: optionalString,
  modelProvider: optionalString,
  allowProviderModelFallback: checked(flag()),
  serviceTier: optionalString,
  cwd: optionalString,
  runtimeWorkspaceRoots: workspaceRoots,
  approvalPolicy: optional(approvalPolicy),
  approvalsReviewer: optional(unitEnum(APPROVALS_REVIEWERS)),
  sandbox: optional(unitEnum(SANDBOX_MODES)),
  permissions: optionalString,
  config: optional(jsonObject),
  serviceName: optionalString,
  baseInstructions: optionalString,
  developerInstructions: optionalString,
  personality: optional(unitEnum(PERSONALITIES)),
  multiAgentMode: checked(optional(unitEnum(MULTI_AGENT_MODES))),
  ephemeral: optional(boolean),
  historyMode: optional(unitEnum(['legacy', 'paginated'] as const)),
  sessionStartSource: optional(unitEnum(['startup', 'clear'])),
  threadSource: optionalString,
  projectId: checked(optionalString),
  daybreakEnabled: checked(optional(boolean)),
  environments,
  dynamicTools: defaulted(optional(arrayOf(dynamicTool))),
  selectedCapabilityRoots: checked(optional(arrayOf(shape('SelectedCapabilityRoot')))),
  mockExperimentalField: checked(optionalString),
  experimentalRawEvents: checked(flag()),
});

// The settings a resumed or forked thread may be given instead of the ones it ran with.
const RESUMED_SETTINGS = {
  model: optionalString,
  modelProvider: optionalString,
  serviceTier: optionalString,
  cwd: optionalString,
  runtimeWorkspaceRoots: workspaceRoots,
  approvalPolicy: optional(approvalPolicy),
  approvalsReviewer: optional(unitEnum(APPROVALS_REVIEWERS)),
  sandbox: optional(unitEnum(SANDBOX_MODES)),
  permissions: checked(optionalString),
  config: optional(jsonObject),
  baseInstructions: optionalString,
  developerInstructions: optionalString,
};

// Forking by path is not served either: checked and ignored, as for thread/resume. Attaching
// to the source, goal continuation and prediction settings concern features thread-host does
// not have.
export const threadForkParams = struct('ThreadForkParams', {
  threadId: string,
  path: checked(defaulted(optional(pathString))),
  lastTurnId: optionalString,
  beforeTurnId: optionalString,
  ...RESUMED_SETTINGS,
  ephemeral: flag(),
  excludeTurns: flag(),
  threadSource: checked(optionalString),
  attachToSource: checked(flag()),
  deferGoalContinuation: checked(flag()),
  experimentalDisablePredictionMcp: checked(flag()),
  experimentalPredictionMode: checked(flag()),
});

export const threadResumeParams = struct('ThreadResumeParams', {
  threadId: string,
  history: checked(optional(arrayOf(taggedItem('ResponseItem')))),
  // Resuming by path is not served: the field is checked and ignored, so no path outside
  // the home is ever opened (the reference would read it).
  path: checked(defaulted(optional(pathString))),
  ...RESUMED_SETTINGS,
  personality: optional(unitEnum(PERSONALITIES)),
  excludeTurns: flag(),
  initialTurnsPage: checked(optional(shape('ThreadResumeInitialTurnsPageParams'))),
});

export const turnStartParams = struct('TurnStartParams', {
  threadId: string,
  disabledPluginIds: checked(optional(arrayOf(string))),
  clientUserMessageId: optionalString,
  input: arrayOf(userInput) as Decoder<UserInput[]>,
  turnTrigger: checked(optionalString),
  parentTurnId: checked(optionalString),
  rootTurnId: checked(optionalString),
  toolOutput: checked(optional(shape('TurnToolOutput', ['name']))),
  responsesapiClientMetadata: checked(optional(mapOf(string))),
  responsesapiClientMetadataPatch: checked(optional(mapOf(string))),
  additionalContext: checked(optional(mapOf(shape('AdditionalContextEntry')))),
  environments,
  cwd: optional(pathString),
  runtimeWorkspaceRoots: workspaceRoots,
  approvalPolicy: optional(approvalPolicy),
  approvalsReviewer: optional(unitEnum(APPROVALS_REVIEWERS)),
  sandboxPolicy: checked(optional(internallyTagged('SandboxPolicyDeserialize', SANDBOX_POLICY_TYPES))),
  permissions: checked(optionalString),
  model: optionalString,
  serviceTier: checked(optionalString),
  serviceTierForTurn: checked(optionalString),
  effort: optionalString,
  summary: checked(optional(unitEnum(['auto', 'concise', 'detailed', 'none']))),
  personality: checked(optional(unitEnum(PERSONALITIES))),
  outputSchema: optional(anyValue),
  collaborationMode: checked(optional(shape('CollaborationMode', ['mode']))),
  multiAgentMode: checked(optional(unitEnum(MULTI_AGENT_MODES))),
  cyberAccessProgram: checked(optional(unitEnum(['standard', 'daybreakBlue', 'daybreakRed']))),
});

export const turnInterruptParams = struct('TurnInterruptParams', { threadId: string, turnId: string });

export const threadIdParams = struct('ThreadUnsubscribeParams', { threadId: string });
export const threadRevertParams = struct('ThreadRevertParams', { threadId: string, beforeTurnId: string });

export const threadReadParams = struct('ThreadReadParams', { threadId: string, includeTurns: flag() });

export const threadLoadedListParams = struct('ThreadLoadedListParams', { cursor: optionalString, limit: optional(u32) });

export const threadListParams = struct('ThreadListParams', {
  includeAttachedThreads: checked(flag()),
  currentAccountOnly: checked(flag()),
  cursor: optionalString,
  limit: optional(u32),
  includedThreadIds: optional(arrayOf(string)),
  excludedThreadIds: optional(arrayOf(string)),
  sortKey: optional(unitEnum(['created_at', 'updated_at', 'recency_at', 'section_position'])),
  sortDirection: optional(unitEnum(['asc', 'desc'])),
  modelProviders: optional(arrayOf(string)),
  sourceKinds: optional(arrayOf(unitEnum(SOURCE_KINDS) as Decoder<string>)),
  originators: optional(arrayOf(string)),
  archived: optional(boolean),
  sectionId: optionalString,
  projectId: checked(optionalString),
  cwd: optional(cwdFilter),
  useStateDbOnly: checked(flag()),
  searchTerm: optionalString,
  parentThreadId: checked(optionalString),
  ancestorThreadId: checked(optionalString),
  attachedToThreadId: checked(optionalString),
});

const TURN_ITEMS_VIEWS = ['notLoaded', 'summary', 'full'] as const;

export const threadTurnsListParams = struct('ThreadTurnsListParams', {
  threadId: string,
  cursor: optionalString,
  limit: optional(u32),
  sortDirection: optional(unitEnum(['asc', 'desc'])),
  itemsView: optional(unitEnum(TURN_ITEMS_VIEWS)),
});

/** An exclusive item anchor within one turn (`{"type":"item","itemId":…}`). */
const itemAnchor: Decoder<{ itemId: string }> = (value) => {
  if (!isJsonObject(value) || value.type !== 'item') throw new DecodeError('not an item anchor');
  return { itemId: string(value.itemId) };
};

export const threadItemsListParams = struct('ThreadItemsListParams', {
  threadId: string,
  turnId: optionalString,
  cursor: optional(untagged<string | { itemId: string }>('ThreadItemsListCursor', [string, itemAnchor])),
  limit: optional(u32),
  sortDirection: optional(unitEnum(['asc', 'desc'])),
  deferOutput: checked(optional(shape('ThreadItemOutputDeferral'))),
});
