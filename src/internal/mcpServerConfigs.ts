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

/**
 * Headers whose plain values are credentials: `Authorization`, `Cookie`, and any name with a
 * word of a credential (`X-Api-Key`, `X-Goog-Api-Key`, `Private-Token`, `X-Access-Token`,
 * `X-Client-Secret`), as services spell them.
 */
const credentialHeader = /(^|[-_])(authorization|auth|cookie|token|key|apikey|secret|password|passwd|credentials?|signature)([-_]|$)|token$|key$/i

/**
 * A stdio server's variables whose plain values are credentials, by the last word of their name
 * (`BRAVE_API_KEY`, `SLACK_BOT_TOKEN`, `DB_PASSWORD`, `STRIPE_SECRET`), as MCP servers document
 * their setup; `SSH_KEY_PATH` or `LOG_LEVEL` are not.
 */
const credentialVariable = /(^|_)(token|key|apikey|secret|password|passwd|pat|credentials?|auth)$/i

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

/**
 * A URL's query parameters whose values are credentials, by the last word of their name
 * (`api_key`, `access_token`, `apiKey`, `key`, `sig`), as services that take a key in the URL
 * document it; `region` or `format` are not.
 */
const credentialParameter = /(^|[-_.])(token|key|apikey|secret|password|passwd|pat|sig|signature|auth|credentials?)$|[a-z](token|key|secret)$/i

/**
 * A stdio server's flags whose value is a credential (`--api-key <key>`, `--token=<t>`,
 * `--github-pat <t>`), by the same last words.
 */
const credentialFlag = /^--?([a-z0-9]+[-_])*(token|key|apikey|secret|password|passwd|pat|auth|credentials?)$/i

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
    if (equals > 0 && credentialParameter.test(urlForms(pair.slice(0, equals)).at(-1)!)) found.push(...urlForms(pair.slice(equals + 1)))
  }
  return found
}

/** The credentials in a stdio server's arguments: the value of each credential flag. */
const argCredentials = (args: ReadonlyArray<unknown>): ReadonlyArray<string> => {
  const found: Array<string> = []
  args.forEach((arg, i) => {
    if (typeof arg !== "string") return
    const equals = arg.indexOf("=")
    if (equals > 0 && arg.startsWith("-") && credentialFlag.test(arg.slice(0, equals))) found.push(arg.slice(equals + 1))
    else if (credentialFlag.test(arg) && typeof args[i + 1] === "string") found.push(args[i + 1] as string)
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
        else if (typeof value === "string" && (names.has(name) || credentialVariable.test(name))) secrets.add(value)
      }
    }
    if (typeof config.url === "string") for (const credential of urlCredentials(config.url)) secrets.add(credential)
    if (Array.isArray(config.args)) for (const credential of argCredentials(config.args)) secrets.add(credential)
    if (isRecord(config.headers)) {
      for (const [name, value] of Object.entries(config.headers)) {
        const revealed = Redacted.isRedacted(value) ? String(Redacted.value(value)) : value
        if (typeof revealed !== "string") continue
        if (Redacted.isRedacted(value) || credentialHeader.test(name)) {
          for (const part of credentialParts(revealed)) secrets.add(part)
        }
      }
    }
  }
  return [...secrets].filter((secret) => secret.length > 0)
}
