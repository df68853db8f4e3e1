// CPU time as the bench reads it from /proc: the whole process, or its main thread alone.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect, test } from 'vitest';
import { cpuMs, mainThreadCpuMs, statCpuMs } from '../../../bench/lib/proc-cpu.js';

test('utime + stime of a stat line whose command name holds spaces and parentheses, in ms', () => {
  const stat = '4242 (node (a) b) S 1 4242 4242 0 -1 4194304 900 0 0 0 123 45 0 0 20 0 11 0 777 1000 200';
  expect(statCpuMs(stat)).toBe(1680);
});

test('a worker thread busy for a while counts for the process, not for its main thread', async () => {
  const busyMs = 300;
  // The worker spins until its own thread has run busyMs (read from its own stat, so a loaded
  // machine only makes it take longer), then the child reports and waits to be killed.
  const worker = `
    const { readFileSync } = require('node:fs');
    const own = () => {
      const stat = readFileSync('/proc/thread-self/stat', 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    };
    while (own() < ${busyMs}) {}
    require('node:worker_threads').parentPort.postMessage('done');`;
  const child = spawn(process.execPath, ['-e', `new (require('node:worker_threads').Worker)(${JSON.stringify(worker)}, { eval: true }).on('message', () => { console.log('done'); setInterval(() => {}, 1000); });`], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await once(child.stdout, 'data');
    const total = cpuMs(child.pid!);
    const main = mainThreadCpuMs(child.pid!);
    expect(total - main).toBeGreaterThanOrEqual(busyMs);
    expect(main).toBeLessThan(total);
  } finally {
    child.kill('SIGKILL');
  }
});

// Past the largest pid_max Linux allows on 64-bit (2^22), so never a live process.
test('a process that is gone reads NaN', () => {
  expect([cpuMs(2 ** 22 + 1), mainThreadCpuMs(2 ** 22 + 1)]).toEqual([Number.NaN, Number.NaN]);
});
