// A thread's id as every store, map and message holds it: the lowercase hyphenated UUID. Ids
// from clients become one at the protocol edge (src/main/protocol/thread-id.ts, which also
// checks them); ids read from stored text (file names, jsonl lines, rows, the command line)
// become one here, once, where that text is decoded. Past those edges nothing lowercases an id
// again: a ThreadId is already in the one form it takes.

/** A thread id in its one stored form (lowercase). */
export type ThreadId = string & { readonly __brand: 'ThreadId' };

/** `text` (an id as stored or minted) in the one form: the one place an id is lowercased. */
export function threadIdOf(text: string): ThreadId {
  return text.toLowerCase() as ThreadId;
}
