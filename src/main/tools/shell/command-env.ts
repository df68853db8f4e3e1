// The environment a model's command runs with: the host's own, without what looks like a
// credential, over the variables the reference's unified exec sets so that programs write
// plain text for a reader that is no terminal. The host's own value wins, as in the reference
// (codex 0.171.0 gives a command the host's TERM, and `dumb` only where the host has none).
const UNIFIED_EXEC_ENV: Readonly<Record<string, string>> = {
  NO_COLOR: '1',
  TERM: 'dumb',
  LANG: 'C.UTF-8',
  LC_CTYPE: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  COLORTERM: '',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GH_PAGER: 'cat',
  CODEX_CI: '1',
};

// The reference's default excludes of `shell_environment_policy`.
const SECRET = /KEY|SECRET|TOKEN/i;

/** A model's command's environment. */
export function commandEnv(hostEnv: NodeJS.ProcessEnv): Record<string, string> {
  return { ...UNIFIED_EXEC_ENV, ...hostEnvWithoutSecrets(hostEnv) };
}

/** The host's environment without what looks like a credential (command/exec's base). */
export function hostEnvWithoutSecrets(hostEnv: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(hostEnv)) {
    if (value !== undefined && !SECRET.test(name)) env[name] = value;
  }
  return env;
}
