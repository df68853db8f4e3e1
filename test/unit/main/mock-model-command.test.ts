import { expect, test, vi } from 'vitest';
import { runMockModelCommand, type MockModelCommandIo } from '../../../src/main/commands/mock-model/mock-model-command.js';

interface CapturedIo extends MockModelCommandIo {
  out: (text: string) => void;
  stdout: string[];
  stderr: string[];
  stop: () => void;
}

function captureIo(): CapturedIo {
  let stop = (): void => {};
  const stopped = new Promise<void>((resolve) => { stop = resolve; });
  const io: CapturedIo = {
    stdout: [],
    stderr: [],
    out: (text) => { io.stdout.push(text); },
    err: (text) => { io.stderr.push(text); },
    waitForStop: () => stopped,
    stop: () => stop(),
  };
  return io;
}

const HINT = "Run 'thread-host mock-model --help' for usage.\n";

test('--help prints the usage and exits 0', async () => {
  const io = captureIo();
  expect(await runMockModelCommand(['--help'], io)).toEqual(0);
  expect({ stdout: io.stdout, stderr: io.stderr }).toEqual({
    stdout: [`Usage: thread-host mock-model [options]

Runs a mock OpenAI Responses server that answers every POST .../responses with the same
assistant message, like the Codex app-server test harness.

Options:
  --port N            port to listen on (default 0: any free port)
  --host H            address to bind (default 127.0.0.1)
  --reply TEXT        the assistant message (default "Done")
  --delta-chunks N    stream the reply as N output_text.delta events first (default 0)
  --help              show this help
`],
    stderr: [],
  });
});

test.each([
  { args: ['--bogus'], problem: "unknown option '--bogus'" },
  { args: ['serve'], problem: "unexpected argument 'serve'" },
  { args: ['--port'], problem: "option '--port <value>' argument missing" },
  { args: ['--port', '70000'], problem: "--port must be an integer from 0 to 65535, got '70000'" },
  { args: ['--port=-1'], problem: "--port must be an integer from 0 to 65535, got '-1'" },
  { args: ['--delta-chunks', 'many'], problem: "--delta-chunks must be an integer from 0 to 10000, got 'many'" },
])('$args is refused with exit code 2 and a hint', async ({ args, problem }) => {
  const io = captureIo();
  expect(await runMockModelCommand(args, io)).toEqual(2);
  expect({ stdout: io.stdout, stderr: io.stderr }).toEqual({
    stdout: [],
    stderr: [`thread-host mock-model: ${problem}\n${HINT}`],
  });
});

test('the server prints its URL and a config snippet, serves the reply, and exits 0 when stopped', async () => {
  const io = captureIo();
  const exit = runMockModelCommand(['--port', '0', '--reply', 'Hi there'], io);
  await vi.waitFor(() => expect(io.stdout.length).toEqual(1));
  const url = /^mock model listening on (http:\/\/127\.0\.0\.1:\d+\/v1)\n/.exec(io.stdout[0] ?? '')?.[1] ?? '';
  expect(io.stdout).toEqual([`mock model listening on ${url}
# Add to $CODEX_HOME/config.toml:
#   model = "mock-model"
#   model_provider = "mock_provider"
#
#   [model_providers.mock_provider]
#   name = "Mock provider for test"
#   base_url = "${url}"
#   wire_api = "responses"
#   request_max_retries = 0
#   stream_max_retries = 0
`]);

  const response = await fetch(`${url}/responses`, { method: 'POST', body: '{}' });
  expect({ status: response.status, type: response.headers.get('content-type'), body: await response.text() }).toEqual({
    status: 200,
    type: 'text/event-stream',
    body: 'event: response.created\n'
      + 'data: {"type":"response.created","response":{"id":"resp-1"}}\n\n'
      + 'event: response.output_item.done\n'
      + 'data: {"type":"response.output_item.done","item":{"type":"message","role":"assistant","id":"msg-1","content":[{"type":"output_text","text":"Hi there"}]}}\n\n'
      + 'event: response.completed\n'
      + 'data: {"type":"response.completed","response":{"id":"resp-1","usage":{"input_tokens":0,"input_tokens_details":null,"output_tokens":0,"output_tokens_details":null,"total_tokens":0}}}\n\n',
  });

  io.stop();
  expect(await exit).toEqual(0);
  await expect(fetch(`${url}/responses`, { method: 'POST', body: '{}' })).rejects.toThrowError();
});
