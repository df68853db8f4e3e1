// The method table: each served method's params decoder and handler. The router consults it
// after the envelope checks; handlers get typed params and never see raw JSON.
import * as M from './protocol/mcp-params.js';
import { mcpServerResourceRead, mcpServerToolCall } from './handlers/mcp-server-calls.js';
import { mcpServerReload } from './handlers/mcp-server-reload.js';
import type { Connection } from './connections.js';
import { initialize } from './handlers/initialize.js';
import { threadList } from './handlers/thread-list.js';
import { threadRead } from './handlers/thread-read.js';
import { threadResume } from './handlers/thread-resume.js';
import { threadRevert } from './handlers/thread-revert.js';
import { threadFork } from './handlers/thread-fork.js';
import { threadStart } from './handlers/thread-start.js';
import { threadTurnsList } from './handlers/thread-turns-list.js';
import { threadItemsList } from './handlers/thread-items-list.js';
import { threadLoadedList } from './handlers/thread-loaded-list.js';
import { threadUnsubscribe } from './handlers/thread-unsubscribe.js';
import { turnInterrupt, turnStart } from './handlers/turn.js';
import { accountRead, bedrockCheckGovCloudRequirements } from './handlers/account.js';
import { configRead, configRequirementsRead } from './handlers/config-read.js';
import { modelList } from './handlers/model-list.js';
import {
  appList,
  collaborationModeList,
  experimentalFeatureList,
  hooksList,
  mcpServerStatusList,
  pluginInstalled,
  skillsList,
} from './handlers/extension-catalogs.js';
import { threadBackgroundTerminalsList, threadGoalGet } from './handlers/thread-empty-state.js';
import { threadNameSet } from './handlers/thread-name.js';
import { threadArchive, threadUnarchive } from './handlers/thread-archive.js';
import { threadDelete } from './handlers/thread-delete.js';
import { threadMetadataUpdate } from './handlers/thread-metadata-update.js';
import { threadReadStateUpdate } from './handlers/thread-read-state.js';
import { threadCompactStart } from './handlers/thread-compact.js';
import { turnSteer } from './handlers/turn-steer.js';
import * as Q from './handlers/thread-queue.js';
import * as T from './protocol/turn-control-params.js';
import type { HostContext } from './host-context.js';
import type { Decoder } from './protocol/decode.js';
import * as P from './protocol/method-params.js';
import * as D from './protocol/discovery-params.js';
import * as X from './protocol/command-exec-params.js';
import * as E from './handlers/command-exec.js';
import { threadShellCommand } from './handlers/thread-shell-command.js';

export type AfterReply = (effect: () => void) => void;
export type Handler<T> = (ctx: HostContext, connection: Connection, params: T, afterReply: AfterReply) => unknown;

/**
 * `served`: thread-host does what the method asks. `empty`: the method lists things thread-host
 * has none of (skills, MCP servers, …), and answers the reference's empty list.
 */
export type MethodKind = 'served' | 'empty';

export interface MethodSpec<T = unknown> {
  decode: Decoder<T>;
  handle: Handler<T>;
  kind: MethodKind;
  /** The params type is the unit `()`: absent params are taken, not "missing field `params`". */
  paramsOptional: boolean;
}

const spec = <T>(decode: Decoder<T>, handle: Handler<T>, kind: MethodKind = 'served'): MethodSpec =>
  ({ decode, handle, kind, paramsOptional: decode === D.noParams }) as MethodSpec;

export const METHODS: ReadonlyMap<string, MethodSpec> = new Map([
  ['initialize', spec(P.initializeParams, initialize)],
  ['thread/start', spec(P.threadStartParams, threadStart)],
  ['thread/resume', spec(P.threadResumeParams, threadResume)],
  ['thread/fork', spec(P.threadForkParams, threadFork)],
  ['thread/revert', spec(P.threadRevertParams, threadRevert)],
  ['thread/unsubscribe', spec(P.threadIdParams, threadUnsubscribe)],
  ['thread/loaded/list', spec(P.threadLoadedListParams, threadLoadedList)],
  ['thread/read', spec(P.threadReadParams, threadRead)],
  ['thread/list', spec(P.threadListParams, threadList)],
  ['thread/turns/list', spec(P.threadTurnsListParams, threadTurnsList)],
  ['thread/items/list', spec(P.threadItemsListParams, threadItemsList)],
  ['turn/start', spec(P.turnStartParams, turnStart)],
  ['turn/interrupt', spec(P.turnInterruptParams, turnInterrupt)],
  ['account/read', spec(D.getAccountParams, accountRead)],
  ['account/bedrock/checkGovCloudRequirements', spec(D.bedrockGovCloudParams, bedrockCheckGovCloudRequirements)],
  ['model/list', spec(D.modelListParams, modelList)],
  ['config/read', spec(D.configReadParams, configRead)],
  ['configRequirements/read', spec(D.noParams, configRequirementsRead)],
  ['collaborationMode/list', spec(D.collaborationModeListParams, collaborationModeList, 'empty')],
  ['experimentalFeature/list', spec(D.experimentalFeatureListParams, experimentalFeatureList, 'empty')],
  ['skills/list', spec(D.skillsListParams, skillsList, 'empty')],
  ['hooks/list', spec(D.hooksListParams, hooksList, 'empty')],
  ['plugin/installed', spec(D.pluginInstalledParams, pluginInstalled, 'empty')],
  ['app/list', spec(D.appsListParams, appList, 'empty')],
  ['mcpServerStatus/list', spec(D.mcpServerStatusListParams, mcpServerStatusList)],
  ['mcpServer/tool/call', spec(M.mcpServerToolCallParams, mcpServerToolCall)],
  ['config/mcpServer/reload', spec(D.noParams, mcpServerReload)],
  ['mcpServer/resource/read', spec(M.mcpResourceReadParams, mcpServerResourceRead)],
  ['thread/name/set', spec(D.threadSetNameParams, threadNameSet)],
  ['thread/archive', spec(P.threadIdParams, threadArchive)],
  ['thread/unarchive', spec(P.threadIdParams, threadUnarchive)],
  ['thread/delete', spec(P.threadIdParams, threadDelete)],
  ['thread/metadata/update', spec(D.threadMetadataUpdateParams, threadMetadataUpdate)],
  ['thread/readState/update', spec(D.threadReadStateUpdateParams, threadReadStateUpdate)],
  ['thread/goal/get', spec(D.threadGoalGetParams, threadGoalGet, 'empty')],
  ['thread/backgroundTerminals/list', spec(D.backgroundTerminalsListParams, threadBackgroundTerminalsList, 'empty')],
  ['thread/compact/start', spec(T.threadCompactStartParams, threadCompactStart)],
  ['turn/steer', spec(T.turnSteerParams, turnSteer)],
  ['thread/queue/add', spec(T.threadQueueAddParams, Q.threadQueueAdd)],
  ['thread/queue/list', spec(T.threadQueueListParams, Q.threadQueueList)],
  ['thread/queue/update', spec(T.threadQueueUpdateParams, Q.threadQueueUpdate)],
  ['thread/queue/delete', spec(T.threadQueueDeleteParams, Q.threadQueueDelete)],
  ['thread/queue/reorder', spec(T.threadQueueReorderParams, Q.threadQueueReorder)],
  ['thread/queue/start', spec(T.threadQueueStartParams, Q.threadQueueStart)],
  ['thread/shellCommand', spec(X.threadShellCommandParams, threadShellCommand)],
  ['command/exec', spec(X.commandExecParams, E.commandExec)],
  ['command/exec/write', spec(X.commandExecWriteParams, E.commandExecWrite)],
  ['command/exec/terminate', spec(X.commandExecTerminateParams, E.commandExecTerminate)],
  ['command/exec/resize', spec(X.commandExecResizeParams, E.commandExecResize)],
]);
