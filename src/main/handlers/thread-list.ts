// `thread/list`: materialized threads from the rollouts under sessions/, newest first by
// default. Loaded threads show their live status. The cursor is "<sort value>|<id>" of the
// last row, continuing in the same direction.
import type { RolloutSummary } from '../history/rollout-locator.js';
import { listRollouts } from '../history/rollout-locator.js';
import type { Connection } from '../connections.js';
import { invalidRequest } from '../errors.js';
import type { HostContext } from '../host-context.js';
import type { threadListParams } from '../protocol/method-params.js';
import { loadedThreadView, storedThreadView } from '../protocol/thread-view.js';

type Params = ReturnType<typeof threadListParams>;

const DEFAULT_PAGE_SIZE = 25;
const INTERACTIVE_SOURCES = new Set(['vscode', 'cli', 'exec', 'appServer']);

export async function threadList(ctx: HostContext, _connection: Connection, params: Params): Promise<unknown> {
  const summaries = (await listRollouts(ctx.home)).filter((summary) => matches(summary, params));
  const key = params.sortKey === 'updated_at' || params.sortKey === 'recency_at' ? 'updatedAtMs' : 'createdAtMs';
  const direction = params.sortDirection === 'asc' ? 1 : -1;
  const ordered = summaries.sort(
    (a, b) => direction * (a[key] - b[key] || (a.threadId < b.threadId ? -1 : a.threadId > b.threadId ? 1 : 0)),
  );
  let start = 0;
  if (params.cursor !== null) {
    const [value, id] = decodeCursor(params.cursor);
    start = ordered.findIndex((summary) => direction * (summary[key] - value) > 0 || (summary[key] === value && direction * compare(summary.threadId, id) > 0));
    if (start === -1) start = ordered.length;
  }
  const limit = Math.max(params.limit ?? DEFAULT_PAGE_SIZE, 1);
  const page = ordered.slice(start, start + limit);
  const last = page[page.length - 1];
  return {
    data: page.map((summary) => view(ctx, summary)),
    nextCursor: last && start + limit < ordered.length ? `${last[key]}|${last.threadId}` : null,
    backwardsCursor: null,
  };
}

function matches(summary: RolloutSummary, params: Params): boolean {
  const sources = params.sourceKinds && params.sourceKinds.length > 0 ? new Set(params.sourceKinds) : INTERACTIVE_SOURCES;
  if (!sources.has(summary.source)) return false;
  if (params.modelProviders && params.modelProviders.length > 0 && !params.modelProviders.includes(summary.modelProvider)) return false;
  if (params.cwd && !params.cwd.includes(summary.cwd)) return false;
  if (params.searchTerm && !summary.preview.toLowerCase().includes(params.searchTerm.toLowerCase())) return false;
  return params.archived !== true;
}

function view(ctx: HostContext, summary: RolloutSummary): unknown {
  const loaded = ctx.directory.get(summary.threadId);
  if (loaded && loaded.identity && (loaded.lifecycle.kind === 'loaded' || loaded.lifecycle.kind === 'unloading')) {
    return loadedThreadView(loaded, null);
  }
  return storedThreadView(
    {
      id: summary.threadId,
      preview: summary.preview,
      modelProvider: summary.modelProvider,
      model: summary.model,
      createdAtMs: summary.createdAtMs,
      updatedAtMs: summary.updatedAtMs,
      path: summary.path,
      cwd: summary.cwd,
      cliVersion: summary.cliVersion,
      originator: summary.originator,
      source: summary.source,
      historyMode: summary.historyMode,
      turns: [],
    },
    false,
  );
}

function decodeCursor(cursor: string): [number, string] {
  const bar = cursor.indexOf('|');
  const value = Number(cursor.slice(0, bar));
  if (bar <= 0 || !Number.isFinite(value)) throw invalidRequest(`invalid cursor: ${cursor}`);
  return [value, cursor.slice(bar + 1)];
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
