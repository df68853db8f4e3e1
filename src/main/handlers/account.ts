// `account/*` reads. thread-host signs nobody in: a model provider's key comes from the
// environment (its `env_key`), never from a ChatGPT login, so there is no account to report,
// nothing to ask the client to log in to (account/rateLimits/read is refused, see
// refused-methods.ts). The answers are the reference's for a home with an API-key or custom provider.

export function accountRead(): unknown {
  return { account: null, userId: null, requiresOpenaiAuth: false, workspaceRouting: null };
}

/** No provider of this host is AWS Bedrock, in GovCloud or elsewhere. */
export function bedrockCheckGovCloudRequirements(): unknown {
  return { isGovCloud: false, shouldWarn: false };
}
