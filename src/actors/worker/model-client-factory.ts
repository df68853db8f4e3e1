// Picks the model backend for a thread: the built-in responder, or a Responses endpoint.
import type { ResolvedProvider } from '../actor-messages.js';
import { EmbeddedResponder } from '../model/embedded-responder.js';
import type { ModelClient } from '../model/model-client.js';
import { ResponsesHttpClient } from '../model/responses-client.js';

export function createModelClient(provider: ResolvedProvider, userAgent: string, originator: string): ModelClient {
  if (provider.kind === 'embedded') return new EmbeddedResponder();
  return new ResponsesHttpClient({
    baseUrl: provider.baseUrl,
    apiKey: provider.apiKey,
    requestMaxRetries: provider.requestMaxRetries,
    streamMaxRetries: provider.streamMaxRetries,
    requestTimeoutMs: provider.requestTimeoutMs,
    streamIdleTimeoutMs: provider.streamIdleTimeoutMs,
    userAgent,
    originator,
  });
}
