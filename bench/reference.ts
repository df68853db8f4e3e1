// `npm run bench:reference [-- scenario… options]`: the comparison against the reference,
// `codex app-server` 0.171.0, installed on demand (bench/lib/reference-install.ts).
import { runBenchCommand } from './bench-command.js';
import { ensureReference } from './lib/reference-install.js';

try {
  const binary = ensureReference();
  const compare = JSON.stringify([binary, 'app-server', '--listen', 'stdio://']);
  const code = await runBenchCommand(['--compare', compare, ...process.argv.slice(2)]);
  process.exit(code);
} catch (error) {
  process.stderr.write(`bench:reference: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
