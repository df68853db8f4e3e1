// thread/start's `dynamicTools`: the tools a client brings, checked and normalised as the
// reference does (codex 0.171.0, thread_processor.rs validate_dynamic_tools), kept with the
// thread in that normalised (tagged) form (session_meta.dynamic_tools), and turned into the
// Responses API's `tools` entries the model is offered.
//
// Both spellings are accepted: the tagged one of the experimental schema
// (`{type:'function'|'namespace', …}`) and the older untagged one
// (`{name, description, inputSchema, namespace?, deferLoading?}`), whose namespaced entries
// are grouped into one namespace with an empty description, in the order first seen.
import { invalidRequest } from '../../common/errors.js';

/** A function tool in the normalised form. */
export interface DynamicFunctionSpec {
  type: 'function';
  name: string;
  description: string;
  inputSchema: unknown;
  deferLoading?: boolean;
}

/** A namespace of function tools in the normalised form. */
export interface DynamicNamespaceSpec {
  type: 'namespace';
  name: string;
  description: string;
  tools: DynamicFunctionSpec[];
}

export type DynamicToolSpec = DynamicFunctionSpec | DynamicNamespaceSpec;

const NAME_PATTERN = /^[a-zA-Z0-9_-]+$/;
const MAX_NAME_LENGTH = 128;

/** Checks and normalises `dynamicTools`; throws -32600 with the reference's message. */
export function normaliseDynamicTools(raw: readonly unknown[]): DynamicToolSpec[] {
  const specs: DynamicToolSpec[] = [];
  const namespaces = new Map<string, DynamicNamespaceSpec>();
  for (const entry of raw) {
    const tool = entry as Record<string, unknown>;
    if (tool.type === 'namespace') {
      const name = checkedName(tool.name, 'namespace');
      const tools = Array.isArray(tool.tools) ? tool.tools.map((inner) => functionSpec(inner as Record<string, unknown>)) : [];
      const spec: DynamicNamespaceSpec = { type: 'namespace', name, description: stringOr(tool.description, ''), tools };
      specs.push(spec);
      namespaces.set(name, spec);
    } else if (typeof tool.namespace === 'string' && tool.type === undefined) {
      const name = checkedName(tool.namespace, 'namespace');
      let spec = namespaces.get(name);
      if (spec === undefined) {
        spec = { type: 'namespace', name, description: '', tools: [] };
        specs.push(spec);
        namespaces.set(name, spec);
      }
      spec.tools.push(functionSpec(tool));
    } else {
      const spec = functionSpec(tool);
      if (spec.deferLoading === true) throw invalidRequest(`deferred dynamic tool must include a namespace: ${spec.name}`);
      specs.push(spec);
    }
  }
  checkUnique(specs);
  return specs;
}

function functionSpec(tool: Record<string, unknown>): DynamicFunctionSpec {
  const name = checkedName(tool.name, 'tool');
  const schema = tool.inputSchema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw invalidRequest(`dynamic tool input schema is not supported for ${name}: invalid type: ${jsonKind(schema)}, expected struct JsonSchema`);
  }
  const spec: DynamicFunctionSpec = { type: 'function', name, description: stringOr(tool.description, ''), inputSchema: schema };
  if (tool.deferLoading === true) spec.deferLoading = true;
  return spec;
}

function checkedName(value: unknown, what: 'tool' | 'namespace'): string {
  const name = typeof value === 'string' ? value : '';
  if (name === '') throw invalidRequest(`dynamic ${what} name must not be empty`);
  if (name.trim() !== name) throw invalidRequest(`dynamic ${what} name must not have leading or trailing whitespace: ${name}`);
  if (!NAME_PATTERN.test(name)) throw invalidRequest(`dynamic ${what} name must match ^[a-zA-Z0-9_-]+$: ${name}`);
  if (name.length > MAX_NAME_LENGTH) throw invalidRequest(`dynamic ${what} name must be at most ${MAX_NAME_LENGTH} characters: ${name}`);
  if (name === 'mcp' || name.startsWith('mcp__')) throw invalidRequest(`dynamic ${what} name is reserved: ${name}`);
  return name;
}

function checkUnique(specs: readonly DynamicToolSpec[]): void {
  const seen = new Set<string>();
  for (const spec of specs) {
    if (spec.type === 'namespace') {
      if (spec.tools.length === 0) throw invalidRequest(`dynamic tool namespace must contain at least one tool: ${spec.name}`);
      for (const tool of spec.tools) claim(seen, `${spec.name}/${tool.name}`, tool.name);
    } else {
      claim(seen, spec.name, spec.name);
    }
  }
}

function claim(seen: Set<string>, key: string, name: string): void {
  if (seen.has(key)) throw invalidRequest(`duplicate dynamic tool name: ${name}`);
  seen.add(key);
}

/** The Responses API `tools` entries for the thread's dynamic tools; deferred tools are not offered. */
export function responsesToolsOf(specs: readonly DynamicToolSpec[]): unknown[] {
  const tools: unknown[] = [];
  for (const spec of specs) {
    if (spec.type === 'function') {
      if (spec.deferLoading !== true) tools.push(functionTool(spec));
      continue;
    }
    const offered = spec.tools.filter((tool) => tool.deferLoading !== true).map(functionTool);
    if (offered.length === 0) continue;
    tools.push({ type: 'namespace', name: spec.name, description: namespaceDescription(spec), tools: offered });
  }
  return tools;
}

/** The description the model sees for a namespace: its own, or the reference's fallback. */
export function namespaceDescription(spec: DynamicNamespaceSpec): string {
  return spec.description === '' ? `Tools in the ${spec.name} namespace.` : spec.description;
}

function functionTool(spec: DynamicFunctionSpec): unknown {
  return { type: 'function', name: spec.name, description: spec.description, strict: false, parameters: spec.inputSchema };
}

/** The dynamic tool a call names, if the thread has it (deferred ones included: the model may call them). */
export function findDynamicTool(specs: readonly DynamicToolSpec[], namespace: string | null, name: string): DynamicFunctionSpec | undefined {
  for (const spec of specs) {
    if (spec.type === 'function' && namespace === null && spec.name === name) return spec;
    if (spec.type === 'namespace' && spec.name === namespace) return spec.tools.find((tool) => tool.name === name);
  }
  return undefined;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'sequence';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  if (typeof value === 'boolean') return `boolean \`${value}\``;
  return 'unknown';
}
