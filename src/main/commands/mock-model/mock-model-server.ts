// A stand-in for the reference test harness's wiremock "repeating assistant" server
// (codex-rs/app-server/tests/common/mock_model_server.rs): every POST to a path ending in
// `/responses` gets the same three-event SSE reply, byte for byte as the reference builds it.
// One-shot behaviours can be queued to rehearse each way a real provider fails.

import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { AddressInfo, Socket } from 'node:net';

/**
 * One failure or reply, used by the next request instead of the default. The stream failures
 * send a prefix of the default reply, as a real stream cut short would.
 */
export type MockBehaviour =
  | { kind: 'reply'; text: string; deltaChunks?: number }
  /** `retryAfter` becomes the `retry-after` header (seconds). */
  | { kind: 'httpError'; status: number; body?: string; retryAfter?: number | string }
  /** response.created, then response.failed with error {code: "server_error", message}. */
  | { kind: 'failed'; message: string }
  /** The default reply without its response.completed. */
  | { kind: 'closeBeforeCompleted' }
  /** response.created and half of the next event, then the socket is destroyed. */
  | { kind: 'cutMidStream' }
  /** response.created, then the rest of the default reply after `ms` or when the client leaves. */
  | { kind: 'stall'; ms: number }
  /** Events whose data is not JSON, then the end of the body. */
  | { kind: 'malformed' }
  /**
   * A reply of these output items (function calls, messages), each as one
   * `response.output_item.done`, then response.completed: how a model calls tools.
   */
  | { kind: 'output'; items: unknown[] };

/** A `function_call` output item, as a model sends one (`arguments` is JSON text). */
export function functionCallItem(callId: string, name: string, args: unknown, namespace?: string): Record<string, unknown> {
  return { type: 'function_call', id: `fc_${callId}`, call_id: callId, name, arguments: JSON.stringify(args), ...(namespace === undefined ? {} : { namespace }) };
}

/** An assistant message output item. */
export function messageItem(id: string, text: string): Record<string, unknown> {
  return { type: 'message', role: 'assistant', id, content: [{ type: 'output_text', text }] };
}

/** A request as received. `body` is the parsed JSON, or the raw text if it was not JSON. */
export interface MockRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** `performance.now()` when the request's body was read (the bench times tool round trips by it). */
  receivedAt: number;
}

/** A running mock. */
export interface MockModel {
  /** The provider base URL, `http://HOST:PORT/v1`. */
  url: string;
  port: number;
  requests: MockRequest[];
  /** TCP connections accepted so far; lets tests see keep-alive reuse. */
  readonly connections: number;
  enqueue(behaviour: MockBehaviour): void;
  /**
   * Chooses the reply from the request itself, before the queue is consulted (`undefined`:
   * the queue, then the default); null removes it. For concurrent turns, whose requests
   * interleave, so a queue cannot pair a reply with its thread.
   */
  setResponder(choose: ((request: MockRequest) => MockBehaviour | undefined) | null): void;
  /** Drops what is queued for requests that never came (their server was killed first); returns how many. */
  discardQueued(): number;
  close(): Promise<void>;
}

/** Options for {@link startMockModel}. */
export interface MockModelOptions {
  host?: string;
  port?: number;
  reply?: string;
  /** `response.output_text.delta` events before the item; 0 (the reference) sends none. */
  deltaChunks?: number;
}

const RESPONSES_PATH = /.*\/responses$/; // the reference mounts `path_regex(".*/responses$")`
const RESPONSE_ID = 'resp-1';
const ITEM_ID = 'msg-1';
const SSE_HEADERS = { 'content-type': 'text/event-stream' };
const ZERO_USAGE = { input_tokens: 0, input_tokens_details: null, output_tokens: 0, output_tokens_details: null, total_tokens: 0 };

/** Starts the mock and resolves once it listens. */
export async function startMockModel(options: MockModelOptions = {}): Promise<MockModel> {
  const host = options.host ?? '127.0.0.1';
  // The default reply never changes, so it is encoded once: a turn costs one write.
  const defaultEvents = replyEvents(options.reply ?? 'Done', options.deltaChunks ?? 0);
  const defaultBody = Buffer.from(defaultEvents.join(''));
  const queue: MockBehaviour[] = [];
  const requests: MockRequest[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const stalls = new Set<() => void>();
  let responder: ((request: MockRequest) => MockBehaviour | undefined) | null = null;

  const server = http.createServer({ noDelay: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const request: MockRequest = { path, headers: req.headers, body: parseBody(Buffer.concat(chunks).toString('utf8')), receivedAt: performance.now() };
      requests.push(request);
      if (req.method !== 'POST' || !RESPONSES_PATH.test(path)) {
        res.writeHead(404).end();
        return;
      }
      const behaviour = responder?.(request) ?? queue.shift();
      if (behaviour === undefined) {
        res.writeHead(200, { ...SSE_HEADERS, 'content-length': defaultBody.length }).end(defaultBody);
      } else {
        respond(behaviour, defaultEvents, req, res, stalls);
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    connections += 1;
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}/v1`,
    port,
    requests,
    get connections() { return connections; },
    enqueue: (behaviour) => { queue.push(behaviour); },
    discardQueued: () => queue.splice(0).length,
    setResponder: (choose) => { responder = choose; },
    close: () => new Promise<void>((resolve) => {
      for (const release of stalls) release();
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy(); // keep-alive sockets would hold close() open
    }),
  };
}

function respond(
  behaviour: MockBehaviour, defaultEvents: string[], req: http.IncomingMessage, res: http.ServerResponse,
  stalls: Set<() => void>,
): void {
  switch (behaviour.kind) {
    case 'reply':
      sendAll(res, replyEvents(behaviour.text, behaviour.deltaChunks ?? 0));
      return;
    case 'httpError': {
      const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json' };
      if (behaviour.retryAfter !== undefined) headers['retry-after'] = String(behaviour.retryAfter);
      res.writeHead(behaviour.status, headers).end(behaviour.body ?? '');
      return;
    }
    case 'failed':
      sendAll(res, [
        sse(createdEvent()),
        sse({ type: 'response.failed', response: { id: RESPONSE_ID, error: { code: 'server_error', message: behaviour.message } } }),
      ]);
      return;
    case 'closeBeforeCompleted':
      sendAll(res, defaultEvents.slice(0, -1)); // everything but response.completed
      return;
    case 'cutMidStream': {
      // No content-length: chunked, so the client sees a body that ends mid-chunk.
      res.writeHead(200, SSE_HEADERS);
      const second = defaultEvents[1] ?? '';
      res.write((defaultEvents[0] ?? '') + second.slice(0, second.length >> 1), () => req.socket.destroy());
      return;
    }
    case 'stall': {
      res.writeHead(200, SSE_HEADERS);
      res.write(defaultEvents[0] ?? '');
      const rest = defaultEvents.slice(1).join('');
      const release = (): void => {
        clearTimeout(timer);
        stalls.delete(release);
        if (!res.destroyed) res.end(rest);
      };
      const timer = setTimeout(release, behaviour.ms);
      stalls.add(release);
      res.on('close', release); // the client gave up: stop waiting
      return;
    }
    case 'malformed':
      sendAll(res, ['data: this is not json\n\n', 'event: response.completed\ndata: {"type":\n\n']);
      return;
    case 'output':
      sendAll(res, [
        sse(createdEvent()),
        ...behaviour.items.map((item) => sse({ type: 'response.output_item.done', item })),
        sse({ type: 'response.completed', response: { id: RESPONSE_ID, usage: ZERO_USAGE } }),
      ]);
      return;
  }
}

function sendAll(res: http.ServerResponse, events: string[]): void {
  const body = Buffer.from(events.join(''));
  res.writeHead(200, { ...SSE_HEADERS, 'content-length': body.length }).end(body);
}

/** The reference `sse()`: `event:` and `data:` lines, or only `event:` for a type-only event. */
function sse(event: { type: string; [key: string]: unknown }): string {
  return Object.keys(event).length === 1
    ? `event: ${event.type}\n\n`
    : `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** ev_response_created, [ev_message_item_added, ev_output_text_delta…], ev_assistant_message, ev_completed. */
function replyEvents(text: string, deltaChunks: number): string[] {
  const events = [sse(createdEvent())];
  if (deltaChunks > 0) {
    events.push(sse({
      type: 'response.output_item.added',
      item: { type: 'message', role: 'assistant', id: ITEM_ID, content: [] },
    }));
    for (const delta of splitEvenly(text, deltaChunks)) events.push(sse({ type: 'response.output_text.delta', delta }));
  }
  events.push(sse(itemDoneEvent(text)));
  events.push(sse({
    type: 'response.completed',
    response: { id: RESPONSE_ID, usage: ZERO_USAGE },
  }));
  return events;
}

function createdEvent(): { type: string; response: { id: string } } {
  return { type: 'response.created', response: { id: RESPONSE_ID } };
}

function itemDoneEvent(text: string): { type: string; item: unknown } {
  return {
    type: 'response.output_item.done',
    item: { type: 'message', role: 'assistant', id: ITEM_ID, content: [{ type: 'output_text', text }] },
  };
}

/** Exactly `parts` pieces of near-equal length (by code point); short texts give empty pieces. */
function splitEvenly(text: string, parts: number): string[] {
  const chars = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0; i < parts; i += 1) {
    pieces.push(chars.slice(Math.floor((i * chars.length) / parts), Math.floor(((i + 1) * chars.length) / parts)).join(''));
  }
  return pieces;
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
