// Set-up of `npm run test:clients`, once before any file: the reference installed (as
// `npm run bench:reference` installs it) and tmux, which drives the interactive client,
// installed with apt-get when missing and this machine lets us (as .ci/run installs bindfs).
import { spawnSync } from 'node:child_process';
import { ensureReference } from '../../bench/lib/reference-install.js';

const has = (command: string): boolean => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

function ensureTmux(): void {
  if (has('tmux')) return;
  const root = process.getuid?.() === 0;
  const sudo = !root && has('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
  if (!has('apt-get') || (!root && !sudo)) throw new Error('tmux is not installed and cannot be here: install the Debian package tmux');
  const asRoot = sudo ? ['sudo', '-n'] : [];
  for (const argv of [['apt-get', 'update', '-qq'], ['apt-get', 'install', '-y', '-qq', 'tmux']]) {
    const [program, ...args] = [...asRoot, ...argv];
    const run = spawnSync(program!, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    if (run.status !== 0) throw new Error(`${argv.join(' ')} failed (exit ${run.status ?? run.signal})`);
  }
}

export default function setup(): void {
  ensureReference();
  ensureTmux();
}
