/**
 * Where the `claude` CLI 2.1.332 keeps its sessions: the config directory (`CLAUDE_CONFIG_DIR`,
 * else `~/.claude`) and, under its `projects/`, one directory per working directory whose name
 * is the "project key" derived here exactly as the CLI (and the official SDK's `listSessions`)
 * derive it. Checked against the names the real CLI made (`testdata/sessions/project-keys.json`,
 * `scripts/record-project-keys.ts`).
 */

/** Longest sanitized name the CLI keeps whole; a longer one is cut here and gets a hash suffix. */
export const maxSanitizedLength = 200

/**
 * The 32-bit string hash the CLI uses for the suffix of a long project key (djb2 variant:
 * `h = h * 31 + charCode`, over UTF-16 code units, wrapping to a signed 32-bit integer).
 */
export const hash = (text: string): number => {
  let h = 0
  for (let i = 0; i < text.length; i++) h = ((h << 5) - h + text.charCodeAt(i)) | 0
  return h
}

/**
 * Every UTF-16 code unit that is not an ASCII letter or digit becomes `-` (so `/`, `.`, spaces,
 * and each half of a surrogate pair): the CLI's regex has no `u` flag.
 */
export const sanitize = (path: string): string => path.replace(/[^a-zA-Z0-9]/g, "-")

/**
 * The project key of a working directory: the sanitized path, or, when that is longer than 200
 * characters, its first 200 followed by `-` and the base-36 absolute hash of the unsanitized path.
 * The path should be absolute and resolved (the CLI uses the real path of its cwd).
 */
export const fromCwd = (cwd: string): string => {
  const sanitized = sanitize(cwd)
  if (sanitized.length <= maxSanitizedLength) return sanitized
  return `${sanitized.slice(0, maxSanitizedLength)}-${Math.abs(hash(cwd)).toString(36)}`
}

/** What the CLI accepts as `CLAUDE_CODE_PROJECT_DIR_NAME`: a short name that is safe on every OS. */
const validOverride = /^[A-Za-z0-9_-]{1,64}$/
const reservedOnWindows = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/i

/**
 * The environment variables that decide where the CLI writes its sessions.
 */
export interface Environment {
  readonly HOME?: string | undefined
  readonly CLAUDE_CONFIG_DIR?: string | undefined
  readonly CLAUDE_CODE_PROJECT_DIR_NAME?: string | undefined
}

/**
 * The CLI's project key for `cwd` in `env`: `CLAUDE_CODE_PROJECT_DIR_NAME` when `CLAUDE_CONFIG_DIR`
 * is set and the name is valid (the CLI honours the override only then), else {@link fromCwd}.
 */
export const forEnvironment = (cwd: string, env: Environment): string => {
  const override = env.CLAUDE_CODE_PROJECT_DIR_NAME
  if (
    env.CLAUDE_CONFIG_DIR !== undefined && env.CLAUDE_CONFIG_DIR !== "" && override !== undefined &&
    validOverride.test(override) && !reservedOnWindows.test(override)
  ) return override
  return fromCwd(cwd)
}

/**
 * A resolved working directory as the CLI keys it: NFC-normalized on macOS only (whose file
 * system gives names decomposed), as it is elsewhere; the CLI and its SDK do the same.
 */
export const keyedCwd = (dir: string): string => process.platform === "darwin" ? dir.normalize("NFC") : dir

/**
 * The CLI's config directory: `CLAUDE_CONFIG_DIR` when set and not empty, else `<home>/.claude`
 * (`home` is the user's home directory, `HOME` on POSIX), NFC-normalized as the CLI does.
 */
export const configDir = (env: Environment, home: string, join: (...parts: Array<string>) => string): string => {
  const dir = env.CLAUDE_CONFIG_DIR !== undefined && env.CLAUDE_CONFIG_DIR !== "" ? env.CLAUDE_CONFIG_DIR : join(home, ".claude")
  return dir.normalize("NFC")
}
