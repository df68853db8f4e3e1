// Which of a server's tools a thread sees: codex-rs/codex-mcp `ToolFilter::from_config`, an
// allow-list (`enabled_tools`, when set) and then a deny-list (`disabled_tools`) on top.

/** The two lists of a server's config; null is "not set". */
export interface ToolLists {
  enabledTools: string[] | null;
  disabledTools: string[] | null;
}

/** Whether `tool` passes both lists. */
export function toolAllowed(lists: ToolLists, tool: string): boolean {
  if (lists.enabledTools !== null && !lists.enabledTools.includes(tool)) return false;
  return lists.disabledTools === null || !lists.disabledTools.includes(tool);
}

/** The tools that pass, in the server's order. */
export function filterTools<T extends { name: string }>(lists: ToolLists, tools: readonly T[]): T[] {
  return tools.filter((tool) => toolAllowed(lists, tool.name));
}
