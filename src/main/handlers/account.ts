// `account/*` reads. thread-host signs nobody in: a model provider's key comes from the
// environment (its `env_key`), never from a ChatGPT login, so there is no account to report,
// nothing to ask the client to log in to, and no ChatGPT rate limits to read. The answers are
// the reference's for a home with an API-key or custom provider.
import { invalidRequest } from '../../common/errors.js';

export function accountRead(): unknown {
  return { account: null, userId: null, requiresOpenaiAuth: false, workspaceRouting: null };
}

export function accountRateLimitsRead(): never {
  throw invalidRequest('codex account authentication required to read rate limits');
}

/** No provider of this host is AWS Bedrock, in GovCloud or elsewhere. */
export function bedrockCheckGovCloudRequirements(): unknown {
  return { isGovCloud: false, shouldWarn: false };
}
