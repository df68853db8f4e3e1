// Where code runs is part of the design: src/main/ only on the host's main thread, src/actors/
// and workers/thread-host.ts only inside pool workers, workers/line-parser.ts only inside the
// main thread's line-parser worker (it parses huge input lines off the main thread),
// src/stored-reads/ and workers/stored-history.ts only inside the stored-history worker (it
// reads rollouts for thread/list and for reads of threads not loaded, synchronously: never on
// the main thread), src/codex-state/ and workers/codex-state.ts only inside the codex-state
// worker (the one writer of the reference's state and queue databases, so the stored-history
// worker only reads), and
// src/common/ on more than one of them, and src/client/ (a JSON-RPC client of the app server:
// the demo, the bench and the tests) wherever a client runs, never inside the host or a worker. An import across that line would load host code into
// a worker (or worker code into the host), so it fails here, as does a runtime import cycle.
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { importsOf, runtimeCycles, sourceFiles, type ImportEdge } from '../../helpers/import-graph.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

type Zone = 'main' | 'worker' | 'lineParser' | 'storedHistory' | 'codexState' | 'common' | 'client' | 'bench';

function zoneOf(path: string): Zone | null {
  if (path.startsWith('src/main/')) return 'main';
  // Its own zone, not 'worker': it must load neither the host nor the actors, only the parser.
  if (path === 'workers/line-parser.ts') return 'lineParser';
  if (path.startsWith('src/stored-reads/') || path === 'workers/stored-history.ts') return 'storedHistory';
  if (path.startsWith('src/codex-state/') || path === 'workers/codex-state.ts') return 'codexState';
  if (path.startsWith('src/actors/') || path.startsWith('workers/')) return 'worker';
  if (path.startsWith('src/common/')) return 'common';
  if (path.startsWith('src/client/')) return 'client';
  if (path.startsWith('bench/')) return 'bench';
  return null;
}

/**
 * Which zones each zone may import. The bench drives the host from outside, so it may use any
 * but the codex-state worker's: nothing but that worker writes the reference's databases.
 */
const ALLOWED: Record<Zone, readonly Zone[]> = {
  // The demo (src/main/commands/demo.ts) is a client of the host it starts.
  main: ['main', 'common', 'client'],
  worker: ['worker', 'common'],
  lineParser: ['lineParser', 'common'],
  storedHistory: ['storedHistory', 'common'],
  codexState: ['codexState', 'common'],
  common: ['common'],
  client: ['client', 'common'],
  bench: ['bench', 'main', 'worker', 'lineParser', 'storedHistory', 'common', 'client'],
};

/** Imports that cross the line the wrong way, as `from -> to`. Type-only imports count too. */
function wrongWay(edges: ImportEdge[]): string[] {
  return edges
    .filter((edge) => {
      const from = zoneOf(edge.from);
      const to = zoneOf(edge.to);
      return from !== null && (to === null || !ALLOWED[from].includes(to));
    })
    .map((edge) => `${edge.from} -> ${edge.to}`);
}

function projectEdges(): ImportEdge[] {
  return sourceFiles(ROOT, ['src', 'workers', 'bench']).flatMap((file) => importsOf(ROOT, file));
}

describe('the import graph', () => {
  test('no file imports across the main-thread / worker line the wrong way', () => {
    expect(wrongWay(projectEdges())).toEqual([]);
  });

  test('has no runtime import cycle', () => {
    expect(runtimeCycles(projectEdges())).toEqual([]);
  });

  test('every source file sits in a zone', () => {
    expect(sourceFiles(ROOT, ['src', 'workers']).filter((file) => zoneOf(file) === null)).toEqual([]);
  });
});

describe('the checker itself', () => {
  test('catches a planted wrong-way import of each kind', () => {
    const planted = [
      importsOf(ROOT, 'src/actors/thread-actor.ts', "import { Router } from '../main/router.js';"),
      importsOf(ROOT, 'workers/thread-host.ts', "import type { HostContext } from '../src/main/host-context.js';"),
      importsOf(ROOT, 'src/main/router.ts', "const x = await import('../actors/thread-actor.js');"),
      importsOf(ROOT, 'src/common/log.ts', "export { x } from '../main/router.js';"),
      importsOf(ROOT, 'src/main/cli.ts', "import { runBenchCommand } from '../../bench/bench-command.js';"),
      importsOf(ROOT, 'workers/line-parser.ts', "import { requestOf } from '../src/main/protocol/envelope.js';"),
      importsOf(ROOT, 'workers/line-parser.ts', "import { ActorHost } from '../src/actors/actor-host.js';"),
      importsOf(ROOT, 'workers/thread-host.ts', "import '../workers/line-parser.js';"),
      importsOf(ROOT, 'src/main/handlers/thread-list.ts', "import { listThreadPage } from '../../stored-reads/thread-page.js';"),
      importsOf(ROOT, 'workers/stored-history.ts', "import { ThreadDirectory } from '../src/main/threads/directory.js';"),
      importsOf(ROOT, 'src/main/store/files/codex-state-mirror.ts', "import { CodexStateWriter } from '../../../codex-state/codex-state-writer.js';"),
      importsOf(ROOT, 'src/stored-reads/stored-history-jobs.ts', "import { CodexStateWriter } from '../codex-state/codex-state-writer.js';"),
      importsOf(ROOT, 'workers/codex-state.ts', "import { listStoredPage } from '../src/stored-reads/stored-source.js';"),
      importsOf(ROOT, 'src/client/rpc-connection.ts', "import { Router } from '../main/router.js';"),
      importsOf(ROOT, 'src/actors/thread-actor.ts', "import { RpcConnection } from '../client/rpc-connection.js';"),
    ].flat();
    expect(wrongWay(planted)).toEqual([
      'src/actors/thread-actor.ts -> src/main/router.ts',
      'workers/thread-host.ts -> src/main/host-context.ts',
      'src/main/router.ts -> src/actors/thread-actor.ts',
      'src/common/log.ts -> src/main/router.ts',
      'src/main/cli.ts -> bench/bench-command.ts',
      'workers/line-parser.ts -> src/main/protocol/envelope.ts',
      'workers/line-parser.ts -> src/actors/actor-host.ts',
      'workers/thread-host.ts -> workers/line-parser.ts',
      'src/main/handlers/thread-list.ts -> src/stored-reads/thread-page.ts',
      'workers/stored-history.ts -> src/main/threads/directory.ts',
      'src/main/store/files/codex-state-mirror.ts -> src/codex-state/codex-state-writer.ts',
      'src/stored-reads/stored-history-jobs.ts -> src/codex-state/codex-state-writer.ts',
      'workers/codex-state.ts -> src/stored-reads/stored-source.ts',
      'src/client/rpc-connection.ts -> src/main/router.ts',
      'src/actors/thread-actor.ts -> src/client/rpc-connection.ts',
    ]);
  });

  test('finds a runtime cycle and ignores one closed only by a type import', () => {
    const edges: ImportEdge[] = [
      { from: 'b.ts', to: 'c.ts', typeOnly: false },
      { from: 'c.ts', to: 'a.ts', typeOnly: false },
      { from: 'a.ts', to: 'b.ts', typeOnly: false },
      { from: 'x.ts', to: 'y.ts', typeOnly: false },
      { from: 'y.ts', to: 'x.ts', typeOnly: true },
    ];
    expect(runtimeCycles(edges)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });
});
