// The Responses API client: one streamed POST {baseUrl}/responses per sampling, over a
// keep-alive agent so a turn against a loopback provider costs a write and a few reads.
//
//   stream() ── #open ──(HTTP retries: 5xx, 429, connect errors)──▶ Exchange
//      │                                                             │ 2xx
//      │◀── ModelEvent ── ReplayGuard ◀── ResponseEventMapper ◀── SseParser ◀── body
//      └── (stream retries: body broke before response.completed) ──▶ #open again
//
// A stream retry replays the whole sampling. The ReplayGuard swallows the events the caller has
// already seen, so deltas stream live and still nobody sees one twice.

import http from 'node:http';
import https from 'node:https';
import { setTimeout as delay } from 'node:timers/promises';
import {
  IDLE_TIMEOUT_WAITING_FOR_SSE, ModelAbortedError, ModelStreamError, STREAM_CLOSED_BEFORE_COMPLETED,
  connectionFailed, httpStatusError, requestTimedOut, streamDisconnected,
  type ModelClient, type ModelEvent, type ModelRequest,
} from './model-client.js';
import { ReplayGuard } from './replay-guard.js';
import { buildResponsesBody } from './responses-body.js';
import { ResponseEventMapper } from './response-event-mapper.js';
import { SseEventTooLargeError, SseParser } from './sse-parser.js';

export { buildResponsesBody };

/** How to reach one provider, and how patient to be with it. */
export interface ResponsesClientOptions {
  baseUrl: string;
  apiKey: string | null;
  requestMaxRetries: number;
  streamMaxRetries: number;
  /** Deadline for the response headers. */
  requestTimeoutMs?: number;
  /** A body that sends no bytes for this long is abandoned (and retried as a stream failure). */
  streamIdleTimeoutMs?: number;
  userAgent: string;
  originator: string;
  /** First retry delay; later ones double. Tests shrink it. */
  retryBaseDelayMs?: number;
  /** Jitter source in [0, 1). */
  random?: () => number;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 300_000; // the reference's stream_idle_timeout_ms
const DEFAULT_RETRY_BASE_DELAY_MS = 200; // the reference's backoff(): 200 ms × 2^(n-1) × 0.9–1.1
const MAX_RETRY_DELAY_MS = 10_000; // also caps a server's retry-after advice
// Pooled sockets are dropped after this, below the 5 s keep-alive timeout of Node and most
// servers, so a request rarely lands on a socket the server is closing.
const FREE_SOCKET_TIMEOUT_MS = 4_000;
// Error bodies beyond this are not needed: the reference shows at most 1000 bytes.
const MAX_ERROR_BODY_BYTES = 64 * 1024;
// A reused socket that the server had already closed fails at once; resend on a fresh one.
const MAX_STALE_SOCKET_RESENDS = 4;
// reqwest's text when the body breaks mid-stream; the reference passes it through.
const BODY_READ_FAILED = 'error decoding response body';

/** Streams samplings from an OpenAI-compatible Responses endpoint. */
export class ResponsesHttpClient implements ModelClient {
  readonly #url: URL;
  readonly #transport: typeof http | typeof https;
  readonly #agent: http.Agent;
  readonly #options: ResponsesClientOptions;
  readonly #requestTimeoutMs: number;
  readonly #idleTimeoutMs: number;
  readonly #retryBaseDelayMs: number;
  readonly #random: () => number;

  constructor(options: ResponsesClientOptions) {
    this.#options = options;
    this.#url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/responses`);
    this.#transport = this.#url.protocol === 'https:' ? https : http;
    const AgentClass = this.#url.protocol === 'https:' ? https.Agent : http.Agent;
    this.#agent = new AgentClass({ keepAlive: true, timeout: FREE_SOCKET_TIMEOUT_MS, noDelay: true });
    this.#requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#idleTimeoutMs = options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
    this.#retryBaseDelayMs = options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS;
    this.#random = options.random ?? Math.random;
  }

  /** Closes pooled sockets; in-flight streams are not affected. */
  close(): void {
    this.#agent.destroy();
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent, void, undefined> {
    const { signal } = request;
    if (signal.aborted) throw new ModelAbortedError();
    const payload = Buffer.from(JSON.stringify(buildResponsesBody(request)));
    const headers = this.#headers(request, payload.length);
    const maxStreamRetries = this.#options.streamMaxRetries;
    const replay = new ReplayGuard(/*record*/ maxStreamRetries > 0);
    let current: Exchange | null = null;
    const onAbort = (): void => current?.interrupt('aborted');
    signal.addEventListener('abort', onAbort);
    try {
      for (let streamRetry = 0; ; ) {
        current = await this.#open(payload, headers, request, (exchange) => { current = exchange; });
        let failure: ModelStreamError;
        try {
          for await (const event of this.#read(current)) {
            // One chunk can hold many events; none is handed out after an abort.
            if (signal.aborted) throw new ModelAbortedError();
            if (replay.admit(event)) yield event;
          }
          return;
        } catch (err) {
          if (signal.aborted) throw new ModelAbortedError();
          if (!(err instanceof ModelStreamError) || replay.diverged) throw err;
          failure = err;
        }
        // Only a broken stream is retried here; a terminal verdict from the server is final.
        if (failure.kind !== 'streamDisconnected' || streamRetry >= maxStreamRetries) throw failure;
        streamRetry += 1;
        request.onRetry?.(streamRetry, maxStreamRetries, failure.message);
        await this.#sleep(this.#backoff(streamRetry), signal);
        replay.rewind(failure);
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      current?.destroyUnlessDone();
    }
  }

  /** Sends the request until a 2xx arrives or the request-level retries run out. */
  async #open(
    payload: Buffer, headers: http.OutgoingHttpHeaders, request: ModelRequest, track: (e: Exchange) => void,
  ): Promise<Exchange> {
    const { signal } = request;
    const maxRetries = this.#options.requestMaxRetries;
    let staleResends = 0;
    for (let attempt = 0; ; ) {
      const exchange = this.#send(payload, headers);
      track(exchange);
      let failure: ModelStreamError;
      let retryable = true;
      let delayMs: number | null = null;
      try {
        const res = await exchange.response(this.#requestTimeoutMs, this.#idleTimeoutMs);
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) return exchange;
        const body = await readCapped(res, MAX_ERROR_BODY_BYTES);
        failure = httpStatusError({ status, body, url: this.#url.href, headers: res.headers });
        retryable = status === 429 || status >= 500; // other 4xx will not change on a resend
        delayMs = retryAfterMs(res.headers);
      } catch {
        if (signal.aborted || exchange.cause === 'aborted') throw new ModelAbortedError();
        if (exchange.cause === 'requestTimeout') {
          failure = requestTimedOut();
        } else if (exchange.req.reusedSocket && exchange.res === null && staleResends < MAX_STALE_SOCKET_RESENDS) {
          staleResends += 1; // the pooled socket was already dead; this is not a real attempt
          continue;
        } else if (exchange.cause === 'idleTimeout') {
          failure = streamDisconnected(IDLE_TIMEOUT_WAITING_FOR_SSE);
        } else {
          failure = exchange.res === null ? connectionFailed(this.#url.href) : streamDisconnected(BODY_READ_FAILED);
        }
      }
      if (!retryable || attempt >= maxRetries) throw failure;
      attempt += 1;
      request.onRetry?.(attempt, maxRetries, failure.message);
      await this.#sleep(Math.min(delayMs ?? this.#backoff(attempt), MAX_RETRY_DELAY_MS), signal);
    }
  }

  #send(payload: Buffer, headers: http.OutgoingHttpHeaders): Exchange {
    const req = this.#transport.request(this.#url, { method: 'POST', headers, agent: this.#agent });
    const exchange = new Exchange(req);
    req.end(payload);
    return exchange;
  }

  /** Reads one 2xx body to its `response.completed`, or throws why it could not. */
  async *#read(exchange: Exchange): AsyncGenerator<ModelEvent, void, undefined> {
    const res = exchange.res as http.IncomingMessage;
    const parser = new SseParser();
    const mapper = new ResponseEventMapper();
    // Keep the socket on an early exit: after the terminal event it is drained and pooled.
    const chunks = res.iterator({ destroyOnReturn: false }) as AsyncIterableIterator<Buffer>;
    let completed = false;
    try {
      for await (const chunk of chunks) {
        for (const sse of parser.push(chunk)) {
          const event = mapper.accept(sse.data);
          if (event === null) continue;
          completed = event.type === 'completed';
          yield event;
          if (completed) return;
        }
      }
    } catch (err) {
      if (err instanceof ModelStreamError) {
        await exchange.drain(); // response.failed: the server ends the body by itself
        throw err;
      }
      exchange.destroyUnlessDone();
      if (exchange.cause === 'aborted') throw new ModelAbortedError();
      if (exchange.cause === 'idleTimeout') throw streamDisconnected(IDLE_TIMEOUT_WAITING_FOR_SSE);
      if (err instanceof SseEventTooLargeError) throw streamDisconnected(err.message);
      throw streamDisconnected(BODY_READ_FAILED);
    } finally {
      // Only now has the iterator let go of the stream; resuming earlier would be ignored.
      if (completed) await exchange.drain();
    }
    throw streamDisconnected(STREAM_CLOSED_BEFORE_COMPLETED);
  }

  #headers(request: ModelRequest, contentLength: number): http.OutgoingHttpHeaders {
    const headers: http.OutgoingHttpHeaders = {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      originator: this.#options.originator,
      'session-id': request.threadId,
      'thread-id': request.threadId,
      'user-agent': this.#options.userAgent,
      'content-length': contentLength,
    };
    if (this.#options.apiKey !== null) headers.authorization = `Bearer ${this.#options.apiKey}`;
    return headers;
  }

  #backoff(attempt: number): number {
    const jitter = 0.9 + 0.2 * this.#random();
    return Math.min(MAX_RETRY_DELAY_MS, this.#retryBaseDelayMs * 2 ** (attempt - 1) * jitter);
  }

  async #sleep(ms: number, signal: AbortSignal): Promise<void> {
    try {
      await delay(ms, undefined, { signal });
    } catch {
      throw new ModelAbortedError(); // delay() only rejects when the signal fires
    }
  }
}

type Interruption = 'aborted' | 'requestTimeout' | 'idleTimeout';

/** One HTTP request/response pair, and why the client cut it short, if it did. */
class Exchange {
  readonly req: http.ClientRequest;
  res: http.IncomingMessage | null = null;
  cause: Interruption | null = null;
  #draining = false;

  constructor(req: http.ClientRequest) {
    this.req = req;
  }

  /** Resolves with the response headers; arms the idle timeout for the body. */
  response(deadlineMs: number, idleMs: number): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      const deadline = setTimeout(() => this.interrupt('requestTimeout'), deadlineMs);
      // Stays attached after the response: a later socket error must not become uncaught.
      this.req.on('error', (err) => {
        clearTimeout(deadline);
        reject(err);
      });
      this.req.once('response', (res) => {
        clearTimeout(deadline);
        this.res = res;
        this.req.setTimeout(idleMs, () => this.interrupt('idleTimeout'));
        resolve(res);
      });
    });
  }

  /**
   * Cuts the exchange short. The first cause wins, so an abort racing an idle timeout is still
   * an abort. No error object is passed: Node reports the cut itself, and `cause` says why.
   */
  interrupt(cause: Interruption): void {
    this.cause ??= cause;
    if (this.res?.complete !== true) this.req.destroy();
  }

  /** Reads the rest of the body without parsing it, so the socket returns to the pool. */
  drain(): Promise<void> {
    this.#draining = true;
    const res = this.res;
    if (res === null || res.readableEnded) return Promise.resolve();
    res.resume();
    // With every byte parsed, 'end' is a tick away and the socket is pooled right after it.
    // Waiting for it lets a back-to-back request reuse the socket instead of opening another.
    if (!res.complete) return Promise.resolve();
    return new Promise((resolve) => {
      res.once('end', resolve);
      res.once('close', resolve);
    });
  }

  /** Frees the socket of an exchange cut short; a drained one is left to finish (or idle out). */
  destroyUnlessDone(): void {
    if (this.#draining || this.res?.complete === true) return;
    this.req.destroy();
  }
}


/** Reads a whole (error) body as text, keeping at most `limit` bytes. */
async function readCapped(res: http.IncomingMessage, limit: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    if (size < limit) parts.push(chunk.subarray(0, limit - size));
    size += chunk.length;
  }
  return Buffer.concat(parts).toString('utf8');
}

/** `retry-after-ms` (OpenAI) or `retry-after` in seconds; HTTP dates are not used by providers. */
function retryAfterMs(headers: http.IncomingHttpHeaders): number | null {
  const ms = Number(headers['retry-after-ms']);
  if (headers['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const seconds = Number(headers['retry-after']);
  if (headers['retry-after'] !== undefined && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  return null;
}
