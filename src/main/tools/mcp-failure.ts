// The halves of a failed MCP request (mcp/tool-call-result.ts `McpCallError.parts`), read
// without importing the MCP runtime, which the host loads only once a thread has a server.

/** What failed and why, when `error` is an MCP request's failure that has them. */
export function failureParts(error: unknown): { context: string; cause: string } | null {
  const parts = (error as { parts?: unknown } | null)?.parts;
  if (typeof parts !== 'object' || parts === null) return null;
  const { context, cause } = parts as { context?: unknown; cause?: unknown };
  return typeof context === 'string' && typeof cause === 'string' ? { context, cause } : null;
}
