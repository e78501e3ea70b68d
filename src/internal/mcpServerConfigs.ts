/**
 * The configs of external MCP servers (the launch option `mcpServers`, `setMcpServers`): their
 * `env` and `headers` may hold `Redacted` values, revealed only where the CLI reads them, and
 * their secrets join the session's, so that the CLI's echo of a config (`mcp_status`) and the
 * `mcp_set_servers` line are written `[redacted]` in transcripts, spans and logs.
 */
import * as Redacted from "effect/Redacted"
import type * as Launch from "../Launch.ts"
import type * as Control from "../protocol/control.ts"
import { isRecord } from "./json.ts"

/** The words that name a credential (`api_key`, `X-Access-Token`, `apiKey`, `DB_PASSWORD`). */
const credentialWords = new Set([
  "token", "key", "apikey", "secret", "password", "passwd", "pat", "auth", "authorization",
  "credential", "credentials", "cookie", "sig", "signature"
])

/** A name's words, lower-case: split at `-`, `_`, `.` and a lower-to-upper case change. */
const wordsOf = (name: string): ReadonlyArray<string> =>
  name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase().split(/[-_.\s]+/).filter((word) => word !== "")

/**
 * Whether `word` names a credential: one of {@link credentialWords}, or one of them run together
 * with what kind it is (`accesstoken`, `clientsecret`; not `monkey`).
 */
const isCredentialWord = (word: string | undefined): boolean =>
  word !== undefined &&
  (credentialWords.has(word) ||
    /^(access|refresh|auth|api|bearer|private|client|session|id|bot|app|signing|secret)(token|key|secret)$/.test(word))

/**
 * A name whose value is a credential, by its last word (`BRAVE_API_KEY`, `SLACK_BOT_TOKEN`,
 * `access_token`, `--github-pat`), as MCP servers and services document their setup;
 * `SSH_KEY_PATH`, `LOG_LEVEL` or `region` are not.
 */
const namesCredential = (name: string): boolean => isCredentialWord(wordsOf(name).at(-1))

/**
 * A header whose value is a credential: `Authorization`, `Cookie`, and any with a word of a
 * credential (`X-Api-Key`, `X-Goog-Api-Key`, `Private-Token`, `X-Client-Secret`).
 */
const isCredentialHeader = (name: string): boolean => wordsOf(name).some(isCredentialWord)

const revealRecord = (values: unknown): unknown =>
  isRecord(values)
    ? Object.fromEntries(Object.entries(values).map(([name, value]) => [name, Redacted.isRedacted(value) ? Redacted.value(value) : value]))
    : values

/**
 * The configs as the CLI reads them: each `Redacted` value of `env` and `headers` revealed. A
 * config of another shape (from JavaScript) is kept as it is, for the checks to name.
 */
export const reveal = (
  servers: Readonly<Record<string, Launch.McpExternalServer>>
): Record<string, Control.McpExternalServerConfig> => {
  const out: Record<string, unknown> = {}
  for (const [name, config] of Object.entries(servers as Readonly<Record<string, unknown>>)) {
    if (!isRecord(config)) out[name] = config
    else {
      out[name] = {
        ...config,
        ...(config.env === undefined ? {} : { env: revealRecord(config.env) }),
        ...(config.headers === undefined ? {} : { headers: revealRecord(config.headers) })
      }
    }
  }
  return out as Record<string, Control.McpExternalServerConfig>
}

/** A credential header's value, and the credential after its scheme (`Bearer <token>`). */
const credentialParts = (value: string): ReadonlyArray<string> => {
  const space = value.trim().indexOf(" ")
  return space === -1 ? [value] : [value, value.trim().slice(space + 1).trim()]
}

/** A value as written, and decoded when it is percent-encoded (the CLI may echo either). */
const urlForms = (raw: string): ReadonlyArray<string> => {
  try {
    const decoded = decodeURIComponent(raw.replace(/\+/g, " "))
    return decoded === raw ? [raw] : [raw, decoded]
  } catch {
    return [raw]
  }
}

/** The credentials a server's URL holds: its userinfo's password and credential parameters. */
const urlCredentials = (url: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  const password = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@:]*:([^/?#@]*)@/i.exec(url)?.[1]
  if (password !== undefined) found.push(...urlForms(password))
  const query = /\?([^#]*)/.exec(url)?.[1] ?? ""
  for (const pair of query.split("&")) {
    const equals = pair.indexOf("=")
    if (equals > 0 && namesCredential(urlForms(pair.slice(0, equals)).at(-1)!)) found.push(...urlForms(pair.slice(equals + 1)))
  }
  return found
}

/**
 * A stdio server's flag whose value is a credential (`--api-key <key>`, `--token=<t>`,
 * `--github-pat <t>`), by its last word; not a negated one (`--no-auth`).
 */
const isCredentialFlag = (flag: string): boolean =>
  /^--?[a-z0-9]/i.test(flag) && !/^--?no-/i.test(flag) && namesCredential(flag.replace(/^--?/, ""))

/**
 * The credentials in a stdio server's arguments: the value of each credential flag, joined
 * (`--token=<t>`) or the next argument, unless that reads as no value of it (another flag, a path:
 * the flag is then a switch, `--require-auth /srv/project`).
 */
const argCredentials = (args: ReadonlyArray<unknown>): ReadonlyArray<string> => {
  const found: Array<string> = []
  args.forEach((arg, i) => {
    if (typeof arg !== "string") return
    const equals = arg.indexOf("=")
    if (equals > 0) {
      if (isCredentialFlag(arg.slice(0, equals))) found.push(arg.slice(equals + 1))
      return
    }
    const next = args[i + 1]
    if (isCredentialFlag(arg) && typeof next === "string" && !/^[-/.~]/.test(next)) found.push(next)
  })
  return found
}

/**
 * The secrets of the configs: every `Redacted` value of `env` and `headers`; the plain `env`
 * values of a secret variable's name (`secretNames`: `Launch.defaultSecretEnv` and the session's
 * `secretEnv`) or of a credential's (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`); the
 * plain values of credential headers (`Authorization`, `X-Api-Key`, `Private-Token`, `Cookie`,
 * …), with the credential after an auth scheme on its own; a URL's password and credential
 * parameters (`?api_key=`, `?access_token=`), and the values of a stdio server's credential flags
 * (`--api-key <key>`, `--token=<t>`).
 */
export const secretsOf = (
  servers: Readonly<Record<string, Launch.McpExternalServer>> | undefined,
  secretNames: ReadonlyArray<string>
): ReadonlyArray<string> => {
  const secrets = new Set<string>()
  const names = new Set(secretNames)
  for (const config of Object.values((servers ?? {}) as Readonly<Record<string, unknown>>)) {
    if (!isRecord(config)) continue
    if (isRecord(config.env)) {
      for (const [name, value] of Object.entries(config.env)) {
        if (Redacted.isRedacted(value)) secrets.add(String(Redacted.value(value)))
        else if (typeof value === "string" && (names.has(name) || namesCredential(name))) secrets.add(value)
      }
    }
    if (typeof config.url === "string") for (const credential of urlCredentials(config.url)) secrets.add(credential)
    if (Array.isArray(config.args)) for (const credential of argCredentials(config.args)) secrets.add(credential)
    if (isRecord(config.headers)) {
      for (const [name, value] of Object.entries(config.headers)) {
        const revealed = Redacted.isRedacted(value) ? String(Redacted.value(value)) : value
        if (typeof revealed !== "string") continue
        if (Redacted.isRedacted(value) || isCredentialHeader(name)) {
          for (const part of credentialParts(revealed)) secrets.add(part)
        }
      }
    }
  }
  return [...secrets].filter((secret) => secret.length > 0)
}
