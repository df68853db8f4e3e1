// Resident memory of a server, read from /proc/<pid>/status VmRSS. The bench spawns each server
// as the leader of its own process group, so summing the group counts a wrapper's real server
// (or helper processes) too; thread-host's workers are threads and already inside its VmRSS.
import { readdirSync, readFileSync } from 'node:fs';

/** VmRSS of one process in kB, or NaN when it is gone or /proc is not there. */
export function rssKb(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Sum of VmRSS over the process group `pgid` (the server and anything it spawned in it), in kB. */
export function groupRssKb(pgid: number): number {
  let total = 0;
  let found = false;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return Number.NaN;
  }
  for (const pid of pids) {
    if (processGroupOf(pid) !== pgid) continue;
    const kb = rssKb(Number(pid));
    if (Number.isFinite(kb)) {
      total += kb;
      found = true;
    }
  }
  return found ? total : Number.NaN;
}

function processGroupOf(pid: string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may itself contain spaces:
    // state ppid pgrp …
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[2]);
  } catch {
    return -1;
  }
}
