// Every client method of the reference that thread-host does not serve, each with the answer
// it gets instead: the reference's own error where the reference has one for a server in this
// host's situation (no ChatGPT account), else -32601 with a message naming what thread-host
// does not do. docs/methods.md lists the same reasons (test/unit/main/method-table.test.ts).
import { ErrorCode, RpcError } from '../common/errors.js';

/** Why a group of methods is refused, worded for the person reading the client's error. */
const NO_TOOLS = 'thread-host runs a client\'s commands only through command/exec and thread/shellCommand, and does not touch the client\'s files';
const NO_MCP = 'thread-host runs the MCP servers its configuration names, without OAuth or event streams';
const NO_ACCOUNTS = "thread-host has no accounts or logins: a model provider's key comes from its env_key";
const NO_EXTENSIONS = 'thread-host has no skills, plugins, marketplaces or apps';
const NO_CONFIG_WRITES = 'thread-host reads its configuration once at start and never writes it';
const NO_PROJECTS = 'thread-host keeps no projects or thread sections';
const NO_REALTIME = 'thread-host has no realtime (voice) sessions';
const NO_THREAD_EDITS = 'thread-host does not edit threads beyond thread/revert';
const NO_QUEUES = 'thread-host keeps no goals or memories for a thread';
const NO_SEARCH = 'thread-host does not search threads';
const NO_STEERING = 'thread-host does not sample, review or change the settings of a running turn';
const NO_ENVIRONMENTS = 'thread-host runs every thread in its own process, with no sandbox, environments or permission profiles';
const NO_REMOTE_CONTROL = 'thread-host has no remote control';
const NO_FEEDBACK = 'thread-host sends no feedback, diagnostics or usage reports';
const NO_PROVIDER_CATALOG = 'thread-host has no model provider catalog beyond model/list and config/read';
const NO_EXTERNAL_CONFIG = 'thread-host imports no other agent\'s configuration';
const LEGACY = 'thread-host serves the v2 protocol only, not this v1 method';

// The reference's answers for a server with no ChatGPT account (codex 0.171.0, see
// test/fixtures/reference-answers/all-methods.jsonl).
// The reference answers account/rateLimits/read before it decodes params: `{"x": 1}` too.
const CHATGPT_ONLY: Record<string, string> = {
  'account/rateLimits/read': 'codex account authentication required to read rate limits',
  'account/usage/read': 'codex account authentication required to read token usage',
  'account/workspaceMessages/read': 'codex account authentication required to read workspace messages',
  'remoteControl/enable': 'remote control requires ChatGPT authentication',
  'remoteControl/disable': 'remote control requires ChatGPT authentication',
  'plugin/share/list': 'list remote plugin shares: chatgpt authentication required for remote plugin catalog',
};

const REASONS: Record<string, readonly string[]> = {
  [NO_TOOLS]: [
    'thread/backgroundTerminals/clean', 'thread/backgroundTerminals/terminate',
    'thread/approveGuardianDeniedAction', 'thread/guardianReview', 'thread/increment_elicitation', 'thread/decrement_elicitation',
    'fs/readFile', 'fs/writeFile', 'fs/createDirectory', 'fs/getMetadata', 'fs/readDirectory', 'fs/remove', 'fs/copy', 'fs/watch', 'fs/unwatch',
    'process/spawn', 'process/writeStdin', 'process/kill', 'process/resizePty',
    'fuzzyFileSearch', 'fuzzyFileSearch/sessionStart', 'fuzzyFileSearch/sessionUpdate', 'fuzzyFileSearch/sessionStop',
  ],
  [NO_MCP]: [
    'mcpServer/oauth/login', 'mcpServer/event/stream/start', 'mcpServer/event/stream/stop',
  ],
  [NO_ACCOUNTS]: [
    'userVerification/status', 'userVerification/enroll', 'userVerification/delete', 'userVerification/verify', 'userVerification/cancel',
    'account/gatewayOAuth/read', 'account/gatewayOAuth/login', 'account/gatewayOAuth/cancel',
    'account/login/start', 'account/bedrock/discover', 'account/bedrock/setup', 'account/gcp/setup', 'account/login/cancel',
    'accountSession/list', 'accountSession/switch', 'account/logout', 'account/securitySetup/read',
    'account/rateLimitResetCredit/consume', 'account/sendAddCreditsNudgeEmail',
  ],
  [NO_EXTENSIONS]: [
    'skills/extraRoots/set', 'marketplace/add', 'marketplace/remove', 'marketplace/upgrade', 'plugin/list', 'plugin/search',
    'plugin/reconcile', 'plugin/read', 'plugin/skill/read', 'plugin/share/save', 'plugin/share/updateTargets', 'plugin/share/checkout',
    'plugin/share/delete', 'app/read', 'app/installed', 'plugin/install', 'plugin/uninstall',
  ],
  [NO_CONFIG_WRITES]: [
    'skills/config/write', 'modelProvider/config/write', 'modelProvider/default/set', 'experimentalFeature/enablement/set',
    'config/value/write', 'config/batchWrite',
  ],
  [NO_PROJECTS]: [
    'project/list', 'project/read', 'project/create', 'project/import', 'project/update', 'project/move', 'project/delete',
    'threadSection/list', 'threadSection/create', 'threadSection/update', 'threadSection/delete', 'thread/section/move',
  ],
  [NO_REALTIME]: [
    'thread/realtime/start', 'thread/realtime/appendAudio', 'thread/realtime/appendText', 'thread/realtime/appendSpeech',
    'thread/realtime/stop', 'thread/realtime/list', 'thread/realtime/listVoices',
  ],
  [NO_THREAD_EDITS]: [
    'thread/attachment/add',
    'thread/attachment/list', 'thread/attachmentOwner/list', 'thread/attachment/remove',
    'thread/items/read', 'thread/inject_items', 'thread/timeline/list', 'rollout/compress',
  ],
  [NO_QUEUES]: [
    'thread/goal/set', 'thread/goal/clear', 'thread/memoryMode/set', 'thread/memory/read',
    'memory/status', 'memory/reset', 'thread/prepareApprovedPlan',
  ],
  [NO_SEARCH]: ['thread/search', 'thread/search/stream', 'thread/search/cancel', 'thread/search/stream/cancel', 'thread/searchOccurrences'],
  [NO_STEERING]: [
    'thread/sample', 'thread/sample/cancel', 'thread/prediction/request', 'thread/settings/update', 'turn/settings/update',
    'review/start',
  ],
  [NO_ENVIRONMENTS]: [
    'permissionProfile/list', 'environment/add', 'environment/info', 'environment/status', 'windowsSandbox/setupStart',
    'windowsSandbox/readiness',
  ],
  [NO_REMOTE_CONTROL]: [
    'remoteControl/status/read', 'remoteControl/pairing/start', 'remoteControl/pairing/status', 'remoteControl/client/list',
    'remoteControl/client/revoke',
  ],
  [NO_FEEDBACK]: ['server/diagnostics', 'feedback/upload', 'feedback/save'],
  [NO_PROVIDER_CATALOG]: ['modelProvider/list', 'modelProvider/capabilities/read'],
  [NO_EXTERNAL_CONFIG]: [
    'externalAgentConfig/detect', 'externalAgentConfig/import', 'externalAgentConfig/import/recordHistory',
    'externalAgentConfig/import/readHistories',
  ],
  [LEGACY]: ['getConversationSummary', 'gitDiffToRemote', 'getAuthStatus'],
  // The reference's test-only method.
  ['thread-host has no test-only methods']: ['mock/experimentalMethod'],
};

/** The error each refused method gets, by method. */
export const REFUSED_METHODS: ReadonlyMap<string, RpcError> = new Map([
  ...Object.entries(CHATGPT_ONLY).map(([method, message]) => [method, new RpcError(ErrorCode.InvalidRequest, message)] as const),
  ...Object.entries(REASONS).flatMap(([reason, methods]) =>
    methods.map((method) => [method, new RpcError(ErrorCode.MethodNotFound, `${method} is not supported: ${reason}`)] as const),
  ),
]);
