// A tool call's arguments, as the items and requests carry them: the model's JSON text parsed
// (blank is no arguments), or the text itself when it is no JSON (the client sees what the
// model wrote); and the object a server call takes.

/** The model's arguments text, parsed; `{}` for blank, the text itself when it is no JSON. */
export function parsedArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Arguments as an object (an MCP call's); anything else is none. */
export function argumentsObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
