// The ids of the outputs the model is given back for its tool calls.
import type { HostContext } from '../host-context.js';
import { uuidv7 } from '../protocol/uuid.js';

/** A fresh `function_call_output` id, as the reference mints them (`fco_<uuidv7>`). */
export function outputIdOf(ctx: HostContext): string {
  return `fco_${uuidv7(ctx.clock.now())}`;
}
