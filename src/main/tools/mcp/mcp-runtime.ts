// What the host loads of MCP only once a thread has a server: the hub (and through it the SDK,
// child processes and crypto), and the launch of a configured server. Imported dynamically
// (thread-mcp.ts), so a host start that names no MCP server never loads them (bench case
// `cold-start`, test/e2e/start-path.test.ts).
export { McpHub } from './mcp-hub.js';
export { McpLaunchError, resolveLaunch } from './mcp-launch.js';
export { McpCallError } from './tool-call-result.js';
