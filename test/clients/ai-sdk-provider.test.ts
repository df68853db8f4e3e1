// Opt-in (`npm run test:clients`): the AI SDK provider for Codex (ai-sdk-provider-codex-cli
// 2.2.1 with `ai` 7, app-server mode) running thread-host in place of `codex app-server`.
// The provider spawns `<codexPath> app-server --listen stdio://`; codexPath here is a wrapper
// that runs the built CLI in a temporary home pointed at the mock model. An app's tool is the
// provider's own kind (`tool({name, description, parameters: zod, execute})` in a
// `createSdkMcpServer`): the provider serves it on a loopback HTTP MCP endpoint of its own,
// with a bearer token, and passes thread/start `config` overrides `mcp_servers.<key>.url` and
// `.http_headers`, so the model sees it as `lookup` in namespace `mcp__<key>`. (Tools given to
// generateText itself are not offered: the provider warns "Codex CLI does not support tools".)
// Its tools carry no annotations, so thread-host asks before running one (an
// `mcpServer/elicitation/request`), which the provider answers from `autoApprove` (false by
// default: declined). codex 0.171.0 gave the same calls, outputs, elicitations, content and
// text in each case below (probed with the same provider and mock); it also offers more
// built-in tools than thread-host's command tools.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText } from 'ai';
import { createCodexAppServer, createSdkMcpServer, tool } from 'ai-sdk-provider-codex-cli';
import { afterAll, beforeAll, expect, onTestFinished, test } from 'vitest';
import { z } from 'zod';
import { mockModelConfig } from '../../src/main/commands/mock-model/mock-config.js';
import { functionCallItem, messageItem, startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { CLI } from '../helpers/server-process.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(() => mock.close());

type Json = Record<string, unknown>;

interface Run {
  /** What the tool's execute was called with. */
  calls: unknown[];
  /** The params of each elicitation the provider was sent. */
  elicitations: unknown[];
  /** The bodies of the model requests of the turn. */
  requests: Array<{ input: Json[]; tools: unknown }>;
  result: Awaited<ReturnType<typeof generateText>>;
}

/**
 * One generateText whose model calls `lookup` of the app's server `app`, then says a text of
 * its own. `approvalPolicy` is the home's config.toml setting (none: the default, on-request).
 */
async function lookupTurn(options: { autoApprove?: boolean; approvalPolicy?: 'never' }): Promise<Run> {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-ai-sdk-'));
  onTestFinished(() => rmSync(home, { recursive: true, force: true }));
  // A user's home, not the harness's: mockModelConfig says approval_policy "never".
  const config = mockModelConfig(mock.url).replace('approval_policy = "never"\n', options.approvalPolicy ? `approval_policy = "${options.approvalPolicy}"\n` : '');
  writeFileSync(join(home, 'config.toml'), config);
  const codexPath = join(home, 'codex');
  const quoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  writeFileSync(codexPath, `#!/bin/sh\nCODEX_HOME=${quoted(home)} THREAD_HOST_HOME=${quoted(home)} exec ${quoted(process.execPath)} ${quoted(CLI)} "$@"\n`);
  chmodSync(codexPath, 0o755);

  const calls: unknown[] = [];
  const lookup = tool({
    name: 'lookup',
    description: 'Looks a key up',
    parameters: z.object({ key: z.string() }),
    execute: async (args) => {
      calls.push(args);
      return 'alpha is the first letter';
    },
  });
  const elicitations: unknown[] = [];
  const provider = createCodexAppServer({
    defaultSettings: {
      codexPath,
      cwd: home,
      ...(options.autoApprove === undefined ? {} : { autoApprove: options.autoApprove }),
      mcpServers: { app: createSdkMcpServer({ name: 'app', tools: [lookup] }) },
      // Noted only: a handler's undefined leaves the answer to autoApprove.
      serverRequests: {
        onMcpElicitation: async (request) => {
          elicitations.push(request.params);
          return undefined;
        },
      },
    },
  });
  onTestFinished(() => provider.close());

  mock.enqueue({ kind: 'output', items: [functionCallItem('call_lookup', 'lookup', { key: 'alpha' }, 'mcp__app')] });
  mock.enqueue({ kind: 'output', items: [messageItem('msg_done', 'Looked it up.')] });
  const before = mock.requests.length;
  const result = await generateText({ model: provider('mock-model'), prompt: 'look alpha up' });
  const requests = mock.requests.slice(before).map((request) => request.body as Run['requests'][number]);
  return { calls, elicitations, requests, result };
}

const wall = expect.stringMatching(/^Wall time: \d+\.\d{4} seconds\nOutput:$/);

/** The `function_call_output`s of a model request. */
const outputs = (request: Run['requests'][number] | undefined) => request?.input.filter((item) => item.type === 'function_call_output');

/** The `mcpToolCall` item as the provider hands it to the app (its `input`, `output` or `error`). */
const item = (rest: Json): Json => ({
  type: 'mcpToolCall', id: 'call_lookup', server: 'app', environmentId: null, tool: 'lookup', arguments: { key: 'alpha' },
  appContext: null, mcpAppUi: null, pluginId: null, readOnlyHint: null, startedAtMs: expect.any(Number), ...rest,
});
const started = item({ status: 'inProgress', result: null, error: null, durationMs: null, completedAtMs: null });
const call = { type: 'tool-call', toolCallId: 'call_lookup', toolName: 'mcp__app__lookup', input: started, providerExecuted: true, dynamic: true };

const approval = {
  threadId: expect.any(String), turnId: expect.any(String), serverName: 'app', environmentId: null, mode: 'form',
  message: 'Allow the app MCP server to run tool "lookup"?',
  requestedSchema: { type: 'object', properties: {} },
  _meta: {
    codex_approval_kind: 'mcp_tool_call', persist: ['session', 'always'], tool_name: 'lookup', tool_description: 'Looks a key up',
    tool_params: { key: 'alpha' }, tool_params_display: [{ name: 'key', value: 'alpha', display_name: 'key' }],
  },
};

test('with autoApprove, the app tool runs with the model arguments and its answer reaches the model', async () => {
  const { calls, elicitations, requests, result } = await lookupTurn({ autoApprove: true });

  expect(calls).toEqual([{ key: 'alpha' }]);
  expect(requests).toHaveLength(2);
  // After the command tools and the resource tools, as the reference orders them.
  const offered = requests[0]!.tools as Array<{ name: string }>;
  expect(offered.map((tool) => tool.name)).toEqual(['exec_command', 'write_stdin', 'list_mcp_resources', 'list_mcp_resource_templates', 'read_mcp_resource', 'mcp__app']);
  expect(offered.slice(5)).toEqual([{
    type: 'namespace', name: 'mcp__app', description: 'Tools in the mcp__app namespace.',
    tools: [{ type: 'function', name: 'lookup', description: 'Looks a key up', strict: false, parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] } }],
  }]);
  expect(outputs(requests[0])).toEqual([]);
  expect(outputs(requests[1])).toEqual([{
    type: 'function_call_output', id: expect.stringMatching(/^fco_/), call_id: 'call_lookup',
    output: [{ type: 'input_text', text: wall }, { type: 'input_text', text: 'alpha is the first letter' }],
  }]);
  expect(elicitations).toEqual([approval]);
  expect(result.text).toBe('Looked it up.');
  expect(result.content).toEqual([
    call,
    {
      type: 'tool-result', toolCallId: 'call_lookup', toolName: 'mcp__app__lookup', input: started, providerExecuted: true, dynamic: true,
      output: item({
        status: 'completed', result: { content: [{ type: 'text', text: 'alpha is the first letter' }], structuredContent: null, _meta: null },
        error: null, durationMs: expect.any(Number), completedAtMs: expect.any(Number),
      }),
    },
    { type: 'text', text: 'Looked it up.' },
  ]);
  expect([result.finishReason, result.warnings]).toEqual(['stop', []]);
});

test.each([
  { name: 'with the provider defaults, the approval is declined', options: {}, message: 'user rejected MCP tool call', asked: [approval] },
  { name: 'under approval policy never, the call is refused unasked', options: { autoApprove: true, approvalPolicy: 'never' as const }, message: 'MCP tool call requires approval, but approval policy is never', asked: [] },
])('$name: the tool does not run and the model is told why', async ({ options, message, asked }) => {
  const { calls, elicitations, requests, result } = await lookupTurn(options);

  expect(calls).toEqual([]);
  expect(elicitations).toEqual(asked);
  expect(requests.map(outputs)).toEqual([[], [{
    type: 'function_call_output', id: expect.stringMatching(/^fco_/), call_id: 'call_lookup',
    output: [{ type: 'input_text', text: wall }, { type: 'input_text', text: message }],
  }]]);
  expect(result.content).toEqual([
    call,
    {
      type: 'tool-error', toolCallId: 'call_lookup', toolName: 'mcp__app__lookup', input: started, providerExecuted: true, dynamic: true,
      error: item({ status: 'failed', result: null, error: { message }, durationMs: 0, completedAtMs: expect.any(Number) }),
    },
    { type: 'text', text: 'Looked it up.' },
  ]);
  expect(result.text).toBe('Looked it up.');
});
