// `model/list`: the models a thread here can talk to, in the reference's Model shape: the one
// configuration names (the default), and the embedded responder, which any thread can pick with
// `modelProvider: "embedded"` and which is listed as hidden when it is not the default.
import type { Connection } from '../connections.js';
import { ConfigError } from '../config/config-document.js';
import { resolveHostConfig } from '../config/host-config.js';
import type { HostContext } from '../host-context.js';
import { memoKey } from '../host-memo.js';
import type { modelListParams } from '../protocol/discovery-params.js';
import { pageByIndex } from '../protocol/index-cursor.js';
import { EMBEDDED_MODEL, type ProviderConfig } from '../../common/model-provider.js';

interface Model {
  id: string;
  hidden: boolean;
  [field: string]: unknown;
}

// The reference's wording for the efforts a Responses model commonly takes; thread-host
// forwards a turn's effort to the provider as given.
const RESPONSES_EFFORTS = [
  { reasoningEffort: 'low', description: 'Fast responses with lighter reasoning' },
  { reasoningEffort: 'medium', description: 'Balances speed and reasoning depth for everyday tasks' },
  { reasoningEffort: 'high', description: 'Greater reasoning depth for complex problems' },
];

// The configuration is fixed for the host's life: the list is built once per host.
const CATALOG = memoKey<Model[]>('model catalog');

export function modelList(ctx: HostContext, _connection: Connection, params: ReturnType<typeof modelListParams>): unknown {
  const catalog = ctx.memo.once(CATALOG, () => catalogOf(ctx.configDocument));
  const visible = params.includeHidden === true ? catalog : catalog.filter((model) => !model.hidden);
  return pageByIndex(visible, params.cursor, params.limit, 'models');
}

function catalogOf(document: Record<string, unknown>): Model[] {
  let configured: { model: string; provider: ProviderConfig } | null = null;
  try {
    configured = resolveHostConfig(document);
  } catch (error) {
    // An invalid configuration is thread/start's to report; the embedded model still works.
    if (!(error instanceof ConfigError)) throw error;
  }
  if (configured === null) return [embeddedModel(false)];
  if (configured.provider.kind === 'embedded') return [embeddedModel(true)];
  return [providerModel(configured.model, configured.provider), embeddedModel(false)];
}

function providerModel(model: string, provider: ProviderConfig): Model {
  return entry({
    id: model,
    displayName: model,
    description: `${model} from the model provider ${provider.name} (${provider.id}).`,
    hidden: false,
    supportedReasoningEfforts: RESPONSES_EFFORTS,
    defaultReasoningEffort: 'medium',
    inputModalities: ['text', 'image'],
    isDefault: true,
  });
}

function embeddedModel(isDefault: boolean): Model {
  return entry({
    id: EMBEDDED_MODEL,
    displayName: 'thread-host echo',
    description: "thread-host's embedded responder: answers every turn locally, without a model provider.",
    hidden: !isDefault,
    // It does not reason; the one effort it lists is the one that asks for none.
    supportedReasoningEfforts: [{ reasoningEffort: 'none', description: 'No reasoning' }],
    defaultReasoningEffort: 'none',
    inputModalities: ['text'],
    isDefault,
  });
}

/** The reference's field order, with the fields thread-host has nothing for set empty. */
function entry(model: {
  id: string;
  displayName: string;
  description: string;
  hidden: boolean;
  supportedReasoningEfforts: unknown[];
  defaultReasoningEffort: string;
  inputModalities: string[];
  isDefault: boolean;
}): Model {
  return {
    id: model.id,
    model: model.id,
    upgrade: null,
    upgradeInfo: null,
    availabilityNux: null,
    displayName: model.displayName,
    description: model.description,
    modelSpecialty: null,
    hidden: model.hidden,
    supportedReasoningEfforts: model.supportedReasoningEfforts,
    defaultReasoningEffort: model.defaultReasoningEffort,
    inputModalities: model.inputModalities,
    supportsPersonality: false,
    multiAgentVersion: null,
    additionalSpeedTiers: [],
    serviceTiers: [],
    defaultServiceTier: null,
    availableAccessPrograms: null,
    isDefault: model.isDefault,
  };
}
