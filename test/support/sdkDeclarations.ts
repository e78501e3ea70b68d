/**
 * What the official TypeScript SDK (`@anthropic-ai/claude-agent-sdk`, its `sdk.d.ts` and
 * `sdk.mjs` in node_modules) declares, read from its files: the members of its `SDKMessage`
 * union, its hook events, its `Options` fields and the control subtypes its `Query` sends. For the
 * tests that compare the library with it (test/MessageTypes.test.ts, test/Parity.test.ts). Reads
 * files only; starts nothing.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"

const sdkDir = Path.resolve(import.meta.dirname, "../../node_modules/@anthropic-ai/claude-agent-sdk")

/** The SDK's version (its package.json). */
export const sdkVersion: string = (JSON.parse(Fs.readFileSync(Path.join(sdkDir, "package.json"), "utf8")) as {
  readonly version: string
}).version

const declarations = Fs.readFileSync(Path.join(sdkDir, "sdk.d.ts"), "utf8")
const lines = declarations.split("\n")

/** The text of `export declare type <name> = …` (or `declare type`), to its closing `};` or `;`. */
const typeDeclaration = (name: string): string => {
  const start = lines.findIndex((line) => new RegExp(`^(export )?declare type ${name} = `).test(line))
  if (start < 0) throw new Error(`sdk.d.ts declares no type ${name}`)
  const first = lines[start]!
  if (!first.trimEnd().endsWith("{") && first.trimEnd().endsWith(";")) return first
  const end = lines.findIndex((line, i) => i > start && /^}/.test(line))
  return lines.slice(start, end + 1).join("\n")
}

/** The top-level fields (four spaces in) of a declaration's object body, without comments. */
const topLevelFields = (body: string): ReadonlyArray<string> =>
  body.split("\n").flatMap((line) => {
    const match = /^ {4}([A-Za-z_][A-Za-z0-9_]*)\??:/.exec(line)
    return match === null ? [] : [match[1]!]
  })

/** A declaration's own string literal for a top-level field (`type: 'system';`). */
const literalField = (body: string, field: string): string | undefined =>
  new RegExp(`^ {4}${field}: '([^']+)';`, "m").exec(body)?.[1]

/** One member of the SDK's `SDKMessage` union: its type name and the line kind it stands for. */
export interface SdkMessage {
  readonly name: string
  /** `type`, or `system/<subtype>` for a `system` line. */
  readonly kind: string
}

/** The members of `SDKMessage`, each with its kind (a union member such as `SDKResultMessage` once). */
export const sdkMessages = (): ReadonlyArray<SdkMessage> => {
  const union = typeDeclaration("SDKMessage").replace(/^.*= /, "").replace(/;\s*$/, "")
  return union.split("|").map((name) => name.trim()).map((name) => {
    let body = typeDeclaration(name)
    // A union of object types (SDKResultMessage): its first member says the type.
    const alias = /= ([A-Za-z]+) \|/.exec(body.split("\n")[0]!)
    if (alias !== null) body = typeDeclaration(alias[1]!)
    const type = literalField(body, "type")
    if (type === undefined) throw new Error(`${name} has no literal type`)
    const subtype = literalField(body, "subtype")
    return { name, kind: type === "system" ? `system/${subtype}` : type }
  })
}

/** `HOOK_EVENTS`, the SDK's hook events. */
export const sdkHookEvents = (): ReadonlyArray<string> => {
  const line = lines.find((l) => l.startsWith("export declare const HOOK_EVENTS:"))
  if (line === undefined) throw new Error("sdk.d.ts declares no HOOK_EVENTS")
  return Array.from(line.matchAll(/'([A-Za-z]+)'/g), (m) => m[1]!)
}

/** The fields of the SDK's `Options`. */
export const sdkOptions = (): ReadonlyArray<string> => topLevelFields(typeDeclaration("Options"))

/** The control subtypes the SDK's `Query` sends (`this.request({subtype:"…"})` in sdk.mjs). */
export const sdkControlSubtypes = (): ReadonlyArray<string> => {
  const code = Fs.readFileSync(Path.join(sdkDir, "sdk.mjs"), "utf8")
  return Array.from(new Set(Array.from(code.matchAll(/request\(\{subtype:"([a-z_]+)"/g), (m) => m[1]!))).sort()
}
