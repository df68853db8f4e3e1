// The stored-history worker's one look at which store it reads: a location or listing source
// (src/common/history-location.ts) opened into the rollout's text, the preview a read shows and
// a thread/list page. Everything else here reads rollout text the same way for both stores.
import { readFileSync } from 'node:fs';
import type { HistoryLocation } from '../common/history-location.js';
import { withHistoryBase } from '../common/rollout/history-base.js';
import { storedThreadPreview, threadPreview } from '../common/rollout/thread-preview.js';
import type { StoredHistoryText } from '../common/postgres/stored-lines.js';
import type { ThreadPage, ThreadPageQuery } from '../common/stored-history-messages.js';
import type { ListingMemory } from './listing-memory.js';
import { storedHistoryText } from './postgres/postgres-reads.js';
import { listThreadPage } from './thread-page.js';

/**
 * The thread's history as rollout text: the file read synchronously (one read at a time here),
 * with the files its history base names, or the store's rows with the first message a revert
 * kept of them; null when the store has none.
 */
export function storedText(location: HistoryLocation, threadId: string): StoredHistoryText | null | Promise<StoredHistoryText | null> {
  if (location.store === 'postgres') return storedHistoryText(location.connection, threadId);
  return { text: withHistoryBase(location.path, readFileSync(location.path, 'utf8')), firstPreview: null };
}

/** The preview a read shows: the file's (its first message ever), or the one the store kept past a revert. */
export function readPreview(location: HistoryLocation, threadId: string, firstPreview: string | null, preview: string): string {
  return location.store === 'files' ? threadPreview(location.path, threadId, preview) : storedThreadPreview(firstPreview, preview);
}

/** A thread/list page from what the worker keeps of the home, or from the store's rows. */
export async function listStoredPage(memory: ListingMemory, query: ThreadPageQuery, progress?: () => void): Promise<ThreadPage> {
  const { source } = query;
  if (source.store === 'files') return listThreadPage(memory, source.home, query, progress);
  const { listPostgresThreadPage } = await import('./postgres/postgres-thread-page.js');
  return await listPostgresThreadPage(source.connection, query);
}
