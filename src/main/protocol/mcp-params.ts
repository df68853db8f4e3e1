// The params of the MCP methods a client calls directly (codex 0.171.0 structs, fields in
// declaration order): a tool of one of a loaded thread's servers, or one of its resources.
import { anyValue, jsonObject, optional, string } from './decode.js';
import { checked, struct } from './decode-struct.js';

const optionalString = optional(string);

export const mcpServerToolCallParams = struct('McpServerToolCallParams', {
  threadId: string,
  server: string,
  tool: string,
  arguments: optional(anyValue),
  _meta: checked(optional(anyValue)),
  environmentId: checked(optionalString),
});

export const mcpResourceReadParams = struct('McpResourceReadParams', {
  threadId: string,
  server: string,
  uri: string,
  _meta: checked(optional(jsonObject)),
  connectorId: checked(optionalString),
  environmentId: checked(optionalString),
  originCallId: checked(optionalString),
});
