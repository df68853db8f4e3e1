// The tools a thread's model is offered, as its settings carry them to the actor: the host's
// own (shell-tool-specs.ts: resolved with the thread's configuration, thread-settings.ts), then
// the client's (dynamic tools); MCP tools join them here.
import type { ThreadSettings } from '../../common/actor-messages.js';
import { responsesToolsOf, type DynamicToolSpec } from './dynamic-tool-specs.js';
import { isHostTool } from './shell/shell-tool-specs.js';

/** The settings fields for a thread with these dynamic tools (normalised), after the host's tools in `current`. */
export function withDynamicTools(specs: readonly DynamicToolSpec[], current: readonly unknown[] = []): Pick<ThreadSettings, 'tools' | 'dynamicTools'> {
  const host = current.filter(isHostTool);
  if (specs.length === 0) return { tools: host, dynamicTools: null };
  return { tools: [...host, ...responsesToolsOf(specs)], dynamicTools: [...specs] };
}

/** The dynamic tools a thread runs with (normalised); empty when it has none. */
export function dynamicToolsOf(settings: ThreadSettings | null): readonly DynamicToolSpec[] {
  return (settings?.dynamicTools ?? []) as DynamicToolSpec[];
}
