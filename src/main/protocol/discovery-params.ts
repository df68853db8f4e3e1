// The params of the methods the reference's interactive client calls besides the thread
// lifecycle: discovery and configuration (account, models, config, the catalogs of extensions
// thread-host does not have) and a thread's name, goal and terminals, decoded with the
// reference's wording (codex 0.171.0 structs, fields in declaration order). Fields the host does not use are
// `checked`: a wrong type still gets the reference's error.
import { arrayOf, boolean, invalidType, isJsonObject, optional, pathString, string, u32, unitEnum, withDefault, type Decoder } from './decode.js';
import { checked, struct, tagOf } from './decode-struct.js';

const flag = () => withDefault(boolean, () => false);
const optionalString = optional(string);
const paths = withDefault(arrayOf(pathString), () => [] as string[]);

/**
 * The params of a method whose params type is the unit `()` (`configRequirements/read`):
 * absent, `null` and `{}` are taken, anything else is not.
 */
export const noParams: Decoder<null> = (value) => {
  if (value === undefined || value === null) return null;
  if (isJsonObject(value) && Object.keys(value).length === 0) return null;
  throw invalidType(value, 'unit');
};

/** A struct with no fields: any map is taken (serde ignores unknown keys). */
const emptyStruct = (name: string) => struct(name, {});

export const getAccountParams = struct('GetAccountParams', { refreshToken: checked(flag()) });

export const bedrockGovCloudParams = emptyStruct('BedrockCheckGovCloudRequirementsParams');

export const modelListParams = struct('ModelListParams', {
  cursor: optionalString,
  limit: optional(u32),
  includeHidden: optional(boolean),
  modelProvider: checked(optionalString),
});

export const configReadParams = struct('ConfigReadParams', { includeLayers: flag(), cwd: optionalString });

export const collaborationModeListParams = emptyStruct('CollaborationModeListParams');

export const experimentalFeatureListParams = struct('ExperimentalFeatureListParams', {
  cursor: optionalString,
  limit: optional(u32),
  threadId: checked(optionalString),
});

export const skillsListParams = struct('SkillsListParams', { cwds: paths, forceReload: checked(flag()) });

export const hooksListParams = struct('HooksListParams', { cwds: paths, threadId: checked(optionalString) });

export const pluginInstalledParams = struct('PluginInstalledParams', {
  cwds: checked(optional(arrayOf(pathString))),
  installSuggestionPluginNames: checked(optional(arrayOf(string))),
});

export const appsListParams = struct('AppsListParams', {
  cursor: checked(optionalString),
  limit: checked(optional(u32)),
  threadId: checked(optionalString),
  forceRefetch: checked(flag()),
});

export const mcpServerStatusListParams = struct('ListMcpServerStatusParams', {
  cursor: optionalString,
  limit: checked(optional(u32)),
  detail: checked(optional(unitEnum(['full', 'toolsAndAuthOnly'] as const))),
  environmentId: checked(optionalString),
  serverName: checked(optionalString),
  threadId: checked(optionalString),
});

export const threadGoalGetParams = struct('ThreadGoalGetParams', { threadId: string });

export const backgroundTerminalsListParams = struct('ThreadBackgroundTerminalsListParams', {
  threadId: string,
  cursor: checked(optionalString),
  limit: checked(optional(u32)),
});

export const threadSetNameParams = struct('ThreadSetNameParams', { threadId: string, name: string });

/** A field of a patch: absent leaves it (undefined), null clears it, a string replaces it. */
const patchString: Decoder<string | null | undefined> = (value) => (value === undefined ? undefined : value === null ? null : string(value));

export const threadMetadataUpdateParams = struct('ThreadMetadataUpdateParams', {
  threadId: string,
  gitInfo: optional(struct('ThreadMetadataGitInfoUpdateParams', { sha: patchString, branch: patchString, originUrl: patchString })),
  projectId: optionalString,
  daybreakEnabled: optional(boolean),
});

/** `ThreadReadStateOperation`: `{"type": "read"}` or `{"type": "unread"}`. */
const readStateOperation: Decoder<'read' | 'unread'> = (value) => tagOf('ThreadReadStateOperation', value, ['read', 'unread']) as 'read' | 'unread';

export const threadReadStateUpdateParams = struct('ThreadReadStateUpdateParams', {
  threadId: string,
  operation: readStateOperation,
  expectedRevision: string,
});
