// What a thread's approval policy lets the host ask, as the reference's `AskForApproval` reads
// (codex 0.171.0, probed): `untrusted` asks for every command and every patch; `on-request`
// (and the configuration's `on-failure`, which reads as it) asks to leave the sandbox;
// `never` asks nothing; the granular policy `{granular: {sandbox_approval, rules, …}}` asks to
// leave the sandbox only with `sandbox_approval`.

/** The granular policy's flags, defaults filled in as the reference's serde fills them. */
export interface GranularApproval {
  sandbox_approval: boolean;
  rules: boolean;
  skill_approval: boolean;
  request_permissions: boolean;
  mcp_elicitations: boolean;
}

/** The granular flags; null for a named policy. */
export function granularOf(policy: unknown): GranularApproval | null {
  if (typeof policy !== 'object' || policy === null || !('granular' in policy)) return null;
  const inner = (policy as { granular: Record<string, unknown> }).granular;
  const flag = (name: string): boolean => inner[name] === true;
  return { sandbox_approval: flag('sandbox_approval'), rules: flag('rules'), skill_approval: flag('skill_approval'), request_permissions: flag('request_permissions'), mcp_elicitations: flag('mcp_elicitations') };
}

/** Whether every command and patch is asked for, wherever it writes (untrusted). */
export function asksForEverything(policy: unknown): boolean {
  return policy === 'untrusted';
}

/** Whether the host may ask the user to let a command or a patch past the sandbox. */
export function mayAskToLeaveSandbox(policy: unknown): boolean {
  const granular = granularOf(policy);
  if (granular !== null) return granular.sandbox_approval;
  return policy === 'on-request' || policy === 'on-failure' || policy === 'untrusted';
}

/** The policy as the reference's `AskForApproval` prints itself (Rust's Debug) in its refusals. */
export function approvalPolicyName(policy: unknown): string {
  const granular = granularOf(policy);
  if (granular !== null) {
    const fields = Object.entries(granular).map(([name, value]) => `${name}: ${value}`).join(', ');
    return `Granular(GranularApprovalConfig { ${fields} })`;
  }
  switch (policy) {
    case 'never':
      return 'Never';
    case 'on-request':
      return 'OnRequest';
    case 'on-failure':
      return 'OnFailure';
    case 'untrusted':
      return 'UnlessTrusted';
    default:
      return String(policy);
  }
}
