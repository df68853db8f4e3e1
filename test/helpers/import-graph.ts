// Reads the project's import graph from source text: every static `import … from`, `export …
// from` and dynamic `import('…')` of a relative path, with whether it is type-only (erased at
// compile time, so it loads nothing at run time).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** One import edge, paths relative to the repository root. */
export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

const IMPORT = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[\s\S]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Every `.ts` file under `dirs` (relative to `root`), skipping declaration files. */
export function sourceFiles(root: string, dirs: string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const dir of dirs) walk(dir);
  return files.sort();
}

/** The relative imports of `file`, resolved to repository paths (`.js` specifiers map to `.ts`). */
export function importsOf(root: string, file: string, text = readFileSync(join(root, file), 'utf8')): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[3] ?? match[4]!;
    const target = relative(root, resolve(root, dirname(file), specifier)).replace(/\.js$/, '.ts');
    edges.push({ from: file, to: target, typeOnly: match[4] === undefined && match[2] !== undefined });
  }
  return edges;
}

/** Runtime cycles: each as the list of files around it, starting at its smallest path. */
export function runtimeCycles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const edge of edges) if (!edge.typeOnly) next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  const cycles = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const target of next.get(node) ?? []) {
      if (state.get(target) === 'open') {
        const cycle = stack.slice(stack.indexOf(target));
        const start = cycle.indexOf([...cycle].sort()[0]!);
        const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
        cycles.set(rotated.join(' -> '), rotated);
      } else if (!state.has(target)) visit(target);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...next.keys()].sort()) if (!state.has(node)) visit(node);
  return [...cycles.values()];
}
