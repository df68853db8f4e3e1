// `thread-host mock-model`: runs the mock Responses server in the foreground so a developer can
// point thread-host (or the reference codex) at it by hand, the way the reference tests do.

import { parseArgs } from 'node:util';
import { startMockModel } from './mock-model-server.js';

/** Where the command writes, and what tells it to stop. The CLI uses the process. */
export interface MockModelCommandIo {
  out(text: string): void;
  err(text: string): void;
  /** Resolves when the server should shut down. */
  waitForStop(): Promise<void>;
}

const USAGE = `Usage: thread-host mock-model [options]

Runs a mock OpenAI Responses server that answers every POST .../responses with the same
assistant message, like the Codex app-server test harness.

Options:
  --port N            port to listen on (default 0: any free port)
  --host H            address to bind (default 127.0.0.1)
  --reply TEXT        the assistant message (default "Done")
  --delta-chunks N    stream the reply as N output_text.delta events first (default 0)
  --help              show this help
`;

const PROGRAM = 'thread-host mock-model';

/** Runs the command; resolves with the exit code. */
export async function runMockModelCommand(argv: string[], io: MockModelCommandIo = processIo()): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        reply: { type: 'string' },
        'delta-chunks': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return usageError(io, describeParseError(error));
  }
  if (parsed.help === true) {
    io.out(USAGE);
    return 0;
  }

  const port = parseInteger(parsed.port ?? '0', 0, 65_535);
  if (port === null) return usageError(io, `--port must be an integer from 0 to 65535, got '${parsed.port}'`);
  const deltaChunks = parseInteger(parsed['delta-chunks'] ?? '0', 0, 10_000);
  if (deltaChunks === null) {
    return usageError(io, `--delta-chunks must be an integer from 0 to 10000, got '${parsed['delta-chunks']}'`);
  }
  const host = parsed.host ?? '127.0.0.1';

  const mock = await startMockModel({ host, port, reply: parsed.reply ?? 'Done', deltaChunks });
  io.out(`mock model listening on ${mock.url}\n${configSnippet(mock.url)}`);
  await io.waitForStop();
  await mock.close();
  return 0;
}

/** The provider block of the reference harness's config.toml, pointed at this server. */
function configSnippet(url: string): string {
  return [
    '# Add to $CODEX_HOME/config.toml:',
    '#   model = "mock-model"',
    '#   model_provider = "mock_provider"',
    '#',
    '#   [model_providers.mock_provider]',
    '#   name = "Mock provider for test"',
    `#   base_url = "${url}"`,
    '#   wire_api = "responses"',
    '#   request_max_retries = 0',
    '#   stream_max_retries = 0',
    '',
  ].join('\n');
}

function usageError(io: MockModelCommandIo, problem: string): number {
  io.err(`${PROGRAM}: ${problem}\nRun '${PROGRAM} --help' for usage.\n`);
  return 2;
}

/** parseArgs' messages vary across Node versions and suggest `--` tricks; say it plainly. */
function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  const quoted = /'([^']*)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted !== undefined) return `unknown option '${quoted}'`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && quoted !== undefined) return `unexpected argument '${quoted}'`;
  return message.charAt(0).toLowerCase() + message.slice(1);
}

function parseInteger(text: string, min: number, max: number): number | null {
  if (!/^\d+$/.test(text)) return null;
  const value = Number(text);
  return value >= min && value <= max ? value : null;
}

function processIo(): MockModelCommandIo {
  return {
    out: (text) => { process.stdout.write(text); },
    err: (text) => { process.stderr.write(text); },
    waitForStop: () => new Promise<void>((resolve) => {
      const stop = (): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    }),
  };
}
