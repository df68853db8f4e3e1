// comlink ships its Node adapter as an ESM file without a sibling declaration for that path.
declare module 'comlink/dist/esm/node-adapter.mjs' {
  import type { Endpoint } from 'comlink';
  export default function nodeEndpoint(port: {
    postMessage(message: unknown, transfer?: unknown[]): void;
    on(type: string, listener: (...args: unknown[]) => void): void;
    off(type: string, listener: (...args: unknown[]) => void): void;
    start?: () => void;
  }): Endpoint;
}
