// Resident memory as the bench reads it from /proc/<pid>/status.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { expect, test } from 'vitest';
import { groupResidentKb, residentOfStatus } from '../../../bench/lib/proc-rss.js';

const STATUS = `Name:\tnode
VmHWM:\t  141000 kB
VmRSS:\t   80084 kB
RssAnon:\t   31200 kB
RssFile:\t   48884 kB
RssShmem:\t       0 kB
Threads:\t11
`;

test('splits VmRSS into its anonymous and file-backed parts', () => {
  expect(residentOfStatus(STATUS)).toEqual({ rss: 80084, anon: 31200, file: 48884 });
});

test('a field the status lacks reads NaN, not 0', () => {
  expect(residentOfStatus('Name:\tnode\nVmRSS:\t 100 kB\n')).toEqual({ rss: 100, anon: Number.NaN, file: Number.NaN });
});

test('a process group of one sleeping process reads as that process', async () => {
  const sleeper = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  try {
    await once(sleeper, 'spawn');
    // Once sleep is asleep in its nanosleep, exec has finished and its memory stays as it is
    // (the name changes earlier, while exec is still mapping the binary).
    const settled = (status: string): boolean => status.startsWith('Name:\tsleep') && /^State:\tS /m.test(status);
    const resident = () => readFileSync(`/proc/${sleeper.pid}/status`, 'utf8');
    for (let before = ''; ; await delay(5)) {
      const now = resident();
      if (settled(now) && residentOfStatus(now).rss === residentOfStatus(before).rss) break;
      before = now;
    }
    const own = residentOfStatus(readFileSync(`/proc/${sleeper.pid}/status`, 'utf8'));
    expect(own.rss).toBe(own.anon + own.file + residentShmem(sleeper.pid!));
    expect(groupResidentKb(sleeper.pid!)).toEqual(own);
  } finally {
    sleeper.kill('SIGKILL');
  }
});

function residentShmem(pid: number): number {
  return Number(/^RssShmem:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}
