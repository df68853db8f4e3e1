// Which model a thread talks to, as the host resolves it from configuration and hands it to
// the actor that opens the connection. The embedded responder's names live here because both
// sides need them: the host reports them, the worker answers under them.

/** The provider id under which the embedded responder is reported. */
export const EMBEDDED_PROVIDER_ID = 'embedded';
/** The model name the embedded responder reports. */
export const EMBEDDED_MODEL = 'thread-host-echo';

/** A Responses-API endpoint, or the built-in local responder. */
export type ProviderConfig =
  | { kind: 'embedded'; id: string; name: string }
  | {
      kind: 'responses';
      id: string;
      name: string;
      baseUrl: string;
      envKey: string | null;
      requestMaxRetries: number;
      streamMaxRetries: number;
      streamIdleTimeoutMs: number;
      requestTimeoutMs: number;
    };

/** A provider with its key already read from the environment on the main thread. */
export type ResolvedProvider = ProviderConfig & { apiKey: string | null };
