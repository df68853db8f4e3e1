// Stack traces that name the TypeScript sources, at no cost to the start. Node's own source-map
// support (`--enable-source-maps`, `process.setSourceMapsEnabled`) must be on before a module
// loads and then, on Node 20, scans every loaded file's text as it compiles, a visible part of
// the bundled CLI's cold start (bench case `cold-start`). Instead a stack is mapped when it is
// first read, from the `.map` file beside each built file, read once then.
//
// Only frames in files under `root` (the build's dist/) are touched; any other frame, and any
// frame of a file without a readable map, keeps V8's text.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** One built file's map, and where its `sources` are relative to; null when it has none. */
interface LoadedMap {
  map: SourceMap;
  base: URL;
}

/**
 * Maps every stack under `root` to its sources from now on, unless Node's own support is on
 * (then it already does, and two rewrites would fight).
 */
export function mapStackTraces(root: URL): void {
  if (process.sourceMapsEnabled) return;
  const maps = new Map<string, LoadedMap | null>();
  Error.prepareStackTrace = (error, frames) => formatStack(error, frames, (file) => mapOf(maps, root, file));
}

/** V8's stack text for `error`, with each frame `mapFor` knows moved to its original position. */
export function formatStack(error: Error, frames: NodeJS.CallSite[], mapFor: (file: string) => LoadedMap | null): string {
  let header: string;
  try {
    header = Error.prototype.toString.call(error);
  } catch {
    header = '<error>';
  }
  return [header, ...frames.map((frame) => `    at ${mappedFrame(frame, mapFor)}`)].join('\n');
}

function mappedFrame(frame: NodeJS.CallSite, mapFor: (file: string) => LoadedMap | null): string {
  const text = String(frame);
  try {
    const file = frame.getFileName();
    const line = frame.getLineNumber();
    const column = frame.getColumnNumber();
    if (!file || line === null || column === null) return text;
    const loaded = mapFor(file);
    if (loaded === null) return text;
    // SourceMap positions are 0-based; V8's are 1-based.
    const entry = loaded.map.findEntry(line - 1, column - 1) as Partial<{ originalSource: string; originalLine: number; originalColumn: number }>;
    if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return text;
    const generated = `${file}:${line}:${column}`;
    const at = text.lastIndexOf(generated);
    if (at === -1) return text;
    // A path, as Node's own source-map support prints a mapped frame.
    const original = `${fileURLToPath(new URL(entry.originalSource, loaded.base))}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    return text.slice(0, at) + original + text.slice(at + generated.length);
  } catch {
    // A stack must always come out: a broken map leaves the frame as V8 wrote it.
    return text;
  }
}

function mapOf(maps: Map<string, LoadedMap | null>, root: URL, file: string): LoadedMap | null {
  let loaded = maps.get(file);
  if (loaded !== undefined) return loaded;
  loaded = null;
  const url = file.startsWith('file:') ? file : file.startsWith('/') ? pathToFileURL(file).href : null;
  if (url !== null && url.startsWith(root.href)) {
    try {
      const mapUrl = new URL(`${url}.map`);
      loaded = { map: new SourceMap(JSON.parse(readFileSync(fileURLToPath(mapUrl), 'utf8'))), base: mapUrl };
    } catch {
      loaded = null;
    }
  }
  maps.set(file, loaded);
  return loaded;
}
