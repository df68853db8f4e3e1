// The validated configuration a host runs with. Keys and defaults follow the reference's
// config.toml so a home can be shared with it; thread-host's own keys are marked.
import { uptime } from 'node:os';
import { EMBEDDED_MODEL, EMBEDDED_PROVIDER_ID, type ProviderConfig } from '../../common/model-provider.js';
import { ConfigError, type ConfigDocument } from './config-document.js';
import { resolveLockBackendConfig } from './lock-backend-config.js';

export type { ProviderConfig };

/** Everything a thread needs from configuration, resolved and checked. */
export interface HostConfig {
  model: string;
  provider: ProviderConfig;
  /** Seconds a thread with no subscribers and no turn stays loaded; `null` means never unload. */
  threadUnloadDelaySecs: number | null;
  approvalPolicy: string;
  approvalsReviewer: string;
  sandboxMode: string;
  /** thread-host: how long an acquisition waits for the writer coordination lock. */
  writerLockTimeoutMs: number;
  /** The history format of new threads' rollouts (existing rollouts keep theirs). */
  historyMode: 'legacy' | 'paginated';
  /** `model_reasoning_effort`, taken as written (the reference echoes even an unknown one). */
  reasoningEffort: string | null;
}

/** thread-host: limits of one client connection (see the README's Configuration table). */
export interface ConnectionLimits {
  /** Longest input line read; a longer one is skipped, and answered -32001 if it starts a request. */
  maxLineBytes: number;
  /** Requests of one connection still being handled; past it, new ones get -32001. */
  maxInFlightRequests: number;
  /** Output queued for a client that is not reading; past it, the client is disconnected. */
  maxOutboundBytes: number;
}

// A line holds at most one message; 32 MiB leaves room for a large pasted input (the
// reference has no limit and serves a 16 MiB line) while bounding what one line can cost.
// 1024 requests in flight is far beyond any interactive client (the reference queues 128
// before it answers "overloaded"). 64 MiB of unread output is far more than a client that is
// merely slow ever leaves behind (a 100 KB reply in 2 000 deltas is about 0.4 MB).
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxLineBytes: 32 * 1024 * 1024,
  maxInFlightRequests: 1024,
  maxOutboundBytes: 64 * 1024 * 1024,
};

// The reference's defaults for a provider's retry budget and stream idle timeout.
const DEFAULT_REQUEST_MAX_RETRIES = 4;
const DEFAULT_STREAM_MAX_RETRIES = 5;
const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 300_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_UNLOAD_DELAY_SECS = 60;
const DEFAULT_WRITER_LOCK_TIMEOUT_MS = 30_000;
const I64_MAX = 2n ** 63n - 1n;

const BUILTIN_PROVIDERS: Record<string, ConfigDocument> = {
  openai: { name: 'OpenAI', base_url: 'https://api.openai.com/v1', env_key: 'OPENAI_API_KEY', wire_api: 'responses' },
};

/** The provider config.toml names (`model_provider`), or the embedded one. */
function defaultModelProviderId(document: ConfigDocument): string {
  return namedModelProvider(document) ?? EMBEDDED_PROVIDER_ID;
}

/** The provider config.toml names (`model_provider`), if it names one. */
export function namedModelProvider(document: ConfigDocument): string | null {
  return optionalString(document, 'model_provider');
}

/** Validates a layered document; throws `ConfigError` naming the offending key. */
export function resolveHostConfig(document: ConfigDocument): HostConfig {
  // Checked here too, so a bad limit in config.toml surfaces on thread/start like any key.
  resolveConnectionLimits(document);
  resolveMaxLoadedThreads(document);
  resolveToolCallGraceMs(document);
  // Startup already refused a bad backend; a request's `config` may still carry one.
  resolveLockBackendConfig(document);
  const providerId = defaultModelProviderId(document);
  const provider = resolveProvider(document, providerId);
  const model = optionalString(document, 'model') ?? (provider.kind === 'embedded' ? EMBEDDED_MODEL : 'gpt-5-codex');
  return {
    model,
    provider,
    threadUnloadDelaySecs: unloadDelay(document.thread_unload_delay_secs),
    approvalPolicy: approvalPolicy(document),
    approvalsReviewer: optionalString(document, 'approvals_reviewer') ?? 'user',
    sandboxMode: enumValue(document, 'sandbox_mode', SANDBOX_MODES) ?? 'read-only',
    writerLockTimeoutMs:
      unsignedInteger(document.writer_lock_timeout_ms, 'writer_lock_timeout_ms') ?? DEFAULT_WRITER_LOCK_TIMEOUT_MS,
    historyMode: historyMode(document),
    reasoningEffort: reasoningEffort(document),
  };
}

// The reference refuses only an empty effort, in its own words (probed with codex 0.171.0).
function reasoningEffort(document: ConfigDocument): string | null {
  const effort = optionalString(document, 'model_reasoning_effort');
  if (effort === '') throw ConfigError.at('model_reasoning_effort', 'reasoning_effort must not be empty');
  return effort;
}

// The reference's default for new threads is paginated history.
// The reference takes the deprecated `on-failure` as on-request: thread/start and config/read
// echo `on-request`, and a write outside the sandbox is asked for (probed with codex 0.171.0).
function approvalPolicy(document: ConfigDocument): string {
  const policy = enumValue(document, 'approval_policy', APPROVAL_POLICIES) ?? 'on-request';
  return policy === 'on-failure' ? 'on-request' : policy;
}

// The reference's variants, in its order (its error lists them); `granular` is a table there.
const APPROVAL_POLICIES = ['untrusted', 'on-failure', 'on-request', 'granular', 'never'] as const;
const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;

/** A string key that takes one of `variants`, refused as serde refuses an unknown variant. */
function enumValue(document: ConfigDocument, key: string, variants: readonly string[]): string | null {
  const value = optionalString(document, key);
  if (value === null || (variants.includes(value) && value !== 'granular')) return value;
  if (value === 'granular') throw ConfigError.at(key, 'invalid type: unit variant, expected newtype variant');
  throw ConfigError.at(key, `unknown variant \`${value}\`, expected one of ${variants.map((variant) => `\`${variant}\``).join(', ')}`);
}

function historyMode(document: ConfigDocument): 'legacy' | 'paginated' {
  const mode = optionalString(document, 'history_mode') ?? 'paginated';
  if (mode !== 'legacy' && mode !== 'paginated') {
    throw ConfigError.at('history_mode', `unknown variant \`${mode}\`, expected \`legacy\` or \`paginated\``);
  }
  return mode;
}

/** The connection limits a document sets, each defaulted; throws `ConfigError` for a bad value. */
export function resolveConnectionLimits(document: ConfigDocument): ConnectionLimits {
  const limit = (key: string, fallback: number): number => {
    const value = unsignedInteger(document[key], key);
    if (value === 0) throw ConfigError.at(key, `invalid value: integer \`0\`, expected a positive integer`);
    return value ?? fallback;
  };
  return {
    maxLineBytes: limit('max_line_bytes', DEFAULT_CONNECTION_LIMITS.maxLineBytes),
    maxInFlightRequests: limit('max_in_flight_requests', DEFAULT_CONNECTION_LIMITS.maxInFlightRequests),
    maxOutboundBytes: limit('max_outbound_bytes', DEFAULT_CONNECTION_LIMITS.maxOutboundBytes),
  };
}

/** thread-host: `max_loaded_threads`, or null when the open-file limit is to decide it. */
/**
 * `tool_call_grace_ms`: how long a request to clients (a tool call, an approval) whose every
 * recipient disconnected waits for a client to resume the thread before it is given up.
 */
export function resolveToolCallGraceMs(document: ConfigDocument): number {
  return unsignedInteger(document.tool_call_grace_ms, 'tool_call_grace_ms') ?? DEFAULT_TOOL_CALL_GRACE_MS;
}

const DEFAULT_TOOL_CALL_GRACE_MS = 60_000;

export function resolveMaxLoadedThreads(document: ConfigDocument): number | null {
  const value = unsignedInteger(document.max_loaded_threads, 'max_loaded_threads');
  if (value === 0) throw ConfigError.at('max_loaded_threads', 'invalid value: integer `0`, expected a positive integer');
  return value;
}

function resolveProvider(document: ConfigDocument, id: string): ProviderConfig {
  const tables = document.model_providers;
  const configured =
    tables !== null && typeof tables === 'object' ? (tables as Record<string, unknown>)[id] : undefined;
  if (configured === undefined && id === EMBEDDED_PROVIDER_ID) {
    return { kind: 'embedded', id, name: 'thread-host embedded responder' };
  }
  const table = configured ?? BUILTIN_PROVIDERS[id];
  // The reference's words (config loading), with no key: `Model provider `nope` not found`.
  if (table === undefined) throw new ConfigError(`Model provider \`${id}\` not found`);
  if (table === null || typeof table !== 'object' || Array.isArray(table)) {
    throw ConfigError.at(`model_providers.${id}`, `expected a table`);
  }
  const t = table as ConfigDocument;
  const key = (name: string) => `model_providers.${id}.${name}`;
  const wireApi = optionalString(t, 'wire_api', key('wire_api')) ?? 'responses';
  if (wireApi !== 'responses') {
    throw ConfigError.at(key('wire_api'), `unknown variant \`${wireApi}\`, expected \`responses\``);
  }
  const baseUrl = optionalString(t, 'base_url', key('base_url'));
  if (baseUrl === null) throw ConfigError.at(key('base_url'), `missing field \`base_url\``);
  try {
    new URL(baseUrl);
  } catch {
    throw ConfigError.at(key('base_url'), `not a URL: ${baseUrl}`);
  }
  return {
    kind: 'responses',
    id,
    name: optionalString(t, 'name', key('name')) ?? id,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    envKey: optionalString(t, 'env_key', key('env_key')),
    requestMaxRetries: unsignedInteger(t.request_max_retries, key('request_max_retries')) ?? DEFAULT_REQUEST_MAX_RETRIES,
    streamMaxRetries: unsignedInteger(t.stream_max_retries, key('stream_max_retries')) ?? DEFAULT_STREAM_MAX_RETRIES,
    streamIdleTimeoutMs:
      unsignedInteger(t.stream_idle_timeout_ms, key('stream_idle_timeout_ms')) ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS,
    requestTimeoutMs: unsignedInteger(t.request_timeout_ms, key('request_timeout_ms')) ?? DEFAULT_REQUEST_TIMEOUT_MS,
  };
}

function optionalString(table: ConfigDocument, name: string, label: string = name): string | null {
  const value = table[name];
  if (value === undefined) return null;
  if (typeof value !== 'string') throw ConfigError.at(label, `invalid type: ${describe(value)}, expected a string`);
  return value;
}

function unsignedInteger(value: unknown, label: string): number | null {
  if (value === undefined) return null;
  const n = integerValue(value, label);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw ConfigError.at(label, `value is too large`);
  return Number(n);
}

function integerValue(value: unknown, label: string): bigint {
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value))) {
    const n = BigInt(value);
    if (n < 0n) throw ConfigError.at(label, `invalid value: integer \`${n}\`, expected u64`);
    return n;
  }
  throw ConfigError.at(label, `invalid type: ${describe(value)}, expected u64`);
}

// u64 seconds; like the reference, reject values whose deadline overflows a monotonic
// clock (seconds since boot plus the delay past i64::MAX). Delays past what a timer can
// hold mean "never" in practice, so they become null.
function unloadDelay(value: unknown): number | null {
  if (value === undefined) return DEFAULT_UNLOAD_DELAY_SECS;
  const n = integerValue(value, 'thread_unload_delay_secs');
  if (n + BigInt(Math.floor(systemUptimeSecs())) > I64_MAX) throw new ConfigError('thread_unload_delay_secs is too large');
  return n > BigInt(Math.floor(Number.MAX_SAFE_INTEGER / 1000)) ? null : Number(n);
}

/**
 * Whether the document's thread_unload_delay_secs is so close to i64::MAX that the system's
 * uptime could push its deadline past it (the check above): its answer depends on the clock,
 * so a configuration holding one cannot be resolved once for later requests. Uptime stays
 * below 2^40 s (35,000 years), so any lesser delay gives the same answer at every request.
 */
export function unloadDelayDependsOnClock(document: ConfigDocument): boolean {
  const value = document.thread_unload_delay_secs;
  const n = typeof value === 'bigint' ? value : typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : null;
  return n !== null && n > I64_MAX - 2n ** 40n;
}

// os.uptime() is a system call, and this runs on every thread/start and resume whose config
// sets the delay: the system's uptime at this process's start is read once, then advanced by
// the process's own (monotonic, in-process) uptime.
let bootOffsetSecs: number | undefined;
function systemUptimeSecs(): number {
  bootOffsetSecs ??= uptime() - process.uptime();
  return bootOffsetSecs + process.uptime();
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  if (typeof value === 'number') return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``;
  if (typeof value === 'boolean') return `boolean \`${value}\``;
  if (Array.isArray(value)) return 'sequence';
  if (value instanceof Date) return 'datetime';
  return 'map';
}
