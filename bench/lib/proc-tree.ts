// A process and everything it started, found in /proc by parent pid (a server's MCP servers run
// in process groups of their own, so its group alone does not hold them), with their resident
// memory and command lines.
import { readdirSync, readFileSync } from 'node:fs';
import { rssKb } from './proc-rss.js';

/** `pid` and its descendants, alive now. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const parent = parentOf(name);
    if (parent === null) continue;
    const list = children.get(parent);
    if (list === undefined) children.set(parent, [Number(name)]);
    else list.push(Number(name));
  }
  const tree: number[] = [];
  const next = [pid];
  while (next.length > 0) {
    const current = next.pop()!;
    tree.push(current);
    next.push(...(children.get(current) ?? []));
  }
  return tree;
}

/** VmRSS summed over the tree, in kB. */
export function treeRssKb(pid: number): number {
  return processTree(pid).reduce((sum, member) => sum + (Number.isFinite(rssKb(member)) ? rssKb(member) : 0), 0);
}

/** The tree's processes whose command line contains `needle`. */
export function treeProcessesRunning(pid: number, needle: string): number[] {
  return processTree(pid).filter((member) => commandLine(member).includes(needle));
}

function parentOf(pid: string): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command may hold spaces and parentheses: the fields after its last ')' are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[1]);
  } catch {
    return null;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}
