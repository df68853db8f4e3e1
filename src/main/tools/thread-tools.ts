// The tools a thread's model is offered, as its settings carry them to the actor: today the
// client's own (dynamic tools); the host's MCP and shell tools join them here.
import type { ThreadSettings } from '../../common/actor-messages.js';
import { responsesToolsOf, type DynamicToolSpec } from './dynamic-tool-specs.js';

/** The settings fields for a thread with these dynamic tools (normalised). */
export function withDynamicTools(specs: readonly DynamicToolSpec[]): Pick<ThreadSettings, 'tools' | 'dynamicTools'> {
  if (specs.length === 0) return { tools: [], dynamicTools: null };
  return { tools: responsesToolsOf(specs), dynamicTools: [...specs] };
}

/** The dynamic tools a thread runs with (normalised); empty when it has none. */
export function dynamicToolsOf(settings: ThreadSettings | null): readonly DynamicToolSpec[] {
  return (settings?.dynamicTools ?? []) as DynamicToolSpec[];
}
