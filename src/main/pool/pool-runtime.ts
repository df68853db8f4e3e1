// The heavy half of the actor pool, loaded on first use rather than at process start: the
// initialize response does not need worker threads, and these modules (plus starting two
// workers on a 2-core machine) are most of what a cold start would otherwise pay for.
export { Piscina } from 'piscina';
export * as Comlink from 'comlink';
export { default as nodeEndpoint } from 'comlink/dist/esm/node-adapter.mjs';
export { unpackSlice } from '../../common/snapshot-decoder.js';
