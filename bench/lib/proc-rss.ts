// Resident memory of a server, read from /proc/<pid>/status. The bench spawns each server as
// the leader of its own process group, so summing the group counts a wrapper's real server (or
// helper processes) too; thread-host's workers are threads and already inside its figures.
//
// VmRSS is split as the kernel counts it: anonymous pages (the heaps: what a host allocates and
// may give back) and file pages (mostly the executable's own code, paged in as paths are first
// run, shared with every process of that binary and dropped by the kernel under pressure).
import { readdirSync, readFileSync } from 'node:fs';

/** Resident memory in kB: the whole (VmRSS) and its anonymous and file-backed parts. */
export interface ResidentKb {
  rss: number;
  anon: number;
  file: number;
}

/** The resident figures of one /proc/<pid>/status text; NaN for a line it lacks. */
export function residentOfStatus(status: string): ResidentKb {
  const kb = (field: string): number => {
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
    return match ? Number(match[1]) : Number.NaN;
  };
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') };
}

/** VmRSS of one process in kB, or NaN when it is gone or /proc is not there. */
export function rssKb(pid: number): number {
  return residentKb(pid).rss;
}

function residentKb(pid: number): ResidentKb {
  try {
    return residentOfStatus(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return { rss: Number.NaN, anon: Number.NaN, file: Number.NaN };
  }
}

/** Sum of VmRSS over the process group `pgid` (the server and anything it spawned in it), in kB. */
export function groupRssKb(pgid: number): number {
  return groupResidentKb(pgid).rss;
}

/** groupRssKb with its anonymous and file-backed parts. */
export function groupResidentKb(pgid: number): ResidentKb {
  const total: ResidentKb = { rss: 0, anon: 0, file: 0 };
  const none: ResidentKb = { rss: Number.NaN, anon: Number.NaN, file: Number.NaN };
  let found = false;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return none;
  }
  for (const pid of pids) {
    if (processGroupOf(pid) !== pgid) continue;
    const kb = residentKb(Number(pid));
    if (Number.isFinite(kb.rss)) {
      total.rss += kb.rss;
      total.anon += kb.anon;
      total.file += kb.file;
      found = true;
    }
  }
  return found ? total : none;
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
