// The flags every bench script shares (`--server-cmd`, `--compare`, `--runs`, `--deadline-s`),
// plus each script's own, parsed once with node:util parseArgs.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { defaultServerCommand, distinctNames, parseServerCommand, type ServerCommand } from './server-command.js';

/** The parsed command line: servers in A, B order, repetitions, and the script's own values. */
export interface BenchOptions {
  servers: ServerCommand[];
  runs: number;
  deadlineMs: number;
  values: Record<string, string | boolean | undefined>;
}

type ExtraOptions = NonNullable<ParseArgsConfig['options']>;

export function parseBenchOptions(argv: string[], extra: ExtraOptions, defaultDeadlineS: number): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      'server-cmd': { type: 'string' },
      compare: { type: 'string' },
      runs: { type: 'string' },
      'deadline-s': { type: 'string' },
      ...extra,
    },
    strict: true,
  });
  const primary = typeof values['server-cmd'] === 'string' ? parseServerCommand(values['server-cmd']) : defaultServerCommand();
  const servers = typeof values.compare === 'string' ? [primary, parseServerCommand(values.compare)] : [primary];
  return {
    servers: distinctNames(servers),
    runs: positiveInt(values.runs, 'runs', 1),
    deadlineMs: positiveInt(values['deadline-s'], 'deadline-s', defaultDeadlineS) * 1000,
    values: values as Record<string, string | boolean | undefined>,
  };
}

/** A positive integer flag, or `fallback` when absent. */
export function positiveInt(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name}: expected a positive integer, got ${String(value)}`);
  return n;
}
