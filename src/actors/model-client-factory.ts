// Picks the model backend for a thread: the built-in responder, or a Responses endpoint.
//
// Threads of one worker that talk to the same provider share one client, and so one
// keep-alive agent: a client per thread left each unloaded thread's idle socket open until the
// agent's timeout, so open descriptors grew with turn throughput (seen in the soak bench).
// Shared, the sockets in use follow the turns running at once.
import type { ResolvedProvider } from '../common/model-provider.js';
import { EmbeddedResponder } from './model/embedded-responder.js';
import type { ModelClient } from './model/model-client.js';
import { ResponsesHttpClient, type ResponsesClientOptions } from './model/responses-client.js';

const shared = new Map<string, ResponsesHttpClient>();

export function createModelClient(provider: ResolvedProvider, userAgent: string, originator: string): ModelClient {
  if (provider.kind === 'embedded') return new EmbeddedResponder();
  const options: ResponsesClientOptions = {
    baseUrl: provider.baseUrl,
    apiKey: provider.apiKey,
    requestMaxRetries: provider.requestMaxRetries,
    streamMaxRetries: provider.streamMaxRetries,
    requestTimeoutMs: provider.requestTimeoutMs,
    streamIdleTimeoutMs: provider.streamIdleTimeoutMs,
    userAgent,
    originator,
  };
  // The options are all the client holds, so equal options mean an interchangeable client.
  const key = JSON.stringify(options);
  let client = shared.get(key);
  if (client === undefined) {
    client = new ResponsesHttpClient(options);
    shared.set(key, client);
  }
  return client;
}
