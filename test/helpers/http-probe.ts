// One plain HTTP request to a listener, for probing what it answers outside WebSocket
// (health endpoints, refusals); `fetch` would hide headers such as Origin.
import { request } from 'node:http';

export interface HttpProbeResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function httpProbe(url: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<HttpProbeResult> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
