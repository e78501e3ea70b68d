/**
 * Hook matchers that match no tool though they look as if they meant some, so the hook never
 * runs and a guard guards nothing, silently. How CLI 2.1.332 reads a matcher (`toolMatcher.ts`):
 * one of letters, digits, `_`, `-`, spaces, `|` and `,` is a list of exact tool names; anything
 * else is one regular expression, not anchored, tried on the tool's name.
 *
 * Only what is certain is refused: a regular expression may mean tools the library cannot see
 * (an MCP server's), so an alternative is refused only when it can match no tool name at all
 * (a comma in it, a permission rule's argument) or names a built-in tool in another case where
 * its anchors leave no room for another name (`^bash$`).
 */
import { builtinToolNames } from "../protocol/tools.ts"

/** One alternative of a regular expression, with whether it is anchored at its start and end. */
interface Alternative {
  readonly text: string
  readonly start: boolean
  readonly end: boolean
}

/** Where `(` at `open` closes in `pattern` (escapes and character classes skipped); -1 if never. */
const closing = (pattern: string, open: number): number => {
  let depth = 0
  let inClass = false
  for (let i = open; i < pattern.length; i++) {
    const char = pattern[i]
    if (char === "\\") i++
    else if (inClass) inClass = char !== "]"
    else if (char === "[") inClass = true
    else if (char === "(") depth++
    else if (char === ")" && --depth === 0) return i
  }
  return -1
}

/** The top-level alternatives of a regular expression (`a|b(c|d)`: `a`, `b(c|d)`). */
const topLevel = (pattern: string): Array<string> => {
  const parts: Array<string> = []
  let depth = 0
  let inClass = false
  let start = 0
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]
    if (char === "\\") i++
    else if (inClass) inClass = char !== "]"
    else if (char === "[") inClass = true
    else if (char === "(") depth++
    else if (char === ")") depth = Math.max(0, depth - 1)
    else if (char === "|" && depth === 0) {
      parts.push(pattern.slice(start, i))
      start = i + 1
    }
  }
  parts.push(pattern.slice(start))
  return parts
}

/**
 * The alternatives of `pattern`, a group that is a whole alternative (`(a|b)`, `(?:a|b)`, with
 * its anchors: `^(a|b)$`) looked into; a lookaround or named group is left whole.
 */
const alternativesOf = (pattern: string, start = false, end = false): Array<Alternative> =>
  topLevel(pattern).flatMap((raw) => {
    let text = raw
    let anchoredStart = start
    let anchoredEnd = end
    if (text.startsWith("^")) {
      text = text.slice(1)
      anchoredStart = true
    }
    if (text.endsWith("$") && !text.endsWith("\\$")) {
      text = text.slice(0, -1)
      anchoredEnd = true
    }
    const plain = text.startsWith("(") && !text.startsWith("(?") || text.startsWith("(?:")
    if (plain && closing(text, 0) === text.length - 1) {
      return alternativesOf(text.slice(text.startsWith("(?:") ? 3 : 1, -1), anchoredStart, anchoredEnd)
    }
    return [{ text, start: anchoredStart, end: anchoredEnd }]
  })

/** A permission rule's shape: a name, then `(…)` (`Bash(rm:*)`, `Read(./secrets/**)`), not a `(?…)` group. */
const ruleShape = /^([A-Za-z][\w-]*)\((?!\?)(.*)\)$/
/** What a permission rule's argument has and a regular expression over tool names does not. */
const ruleArgument = /[:\s/~=]|(^|[^.\\])\*/

/** Whether `text` has a comma outside `{m,n}` and character classes: no tool name has one. */
const hasLiteralComma = (text: string): boolean => {
  let inClass = false
  let inBraces = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (char === "\\") i++
    else if (inClass) inClass = char !== "]"
    else if (char === "[") inClass = true
    else if (char === "{") inBraces = true
    else if (char === "}") inBraces = false
    else if (char === "," && !inBraces) return true
  }
  return false
}

/** The built-in tool whose name `name` is in another case, if any. */
export const otherCase = (name: string): string | undefined =>
  builtinToolNames.find((tool) => tool !== name && tool.toLowerCase() === name.toLowerCase())

const ruleProblem = (event: string, text: string, tool: string) =>
  `the ${event} hook's matcher has "${text}", written as a permission rule, which the CLI reads as a regular ` +
  `expression over tool names that matches no tool: match the tool ("${tool}") and read its input in the handler`

/** What is wrong with one alternative of a regular-expression matcher, if anything. */
const alternativeProblem = (event: string, alternative: Alternative): string | undefined => {
  const { end, start, text } = alternative
  if (hasLiteralComma(text)) {
    return `the ${event} hook's matcher has "${text}", which matches no tool: the CLI separates names with "," only in ` +
      `a matcher of plain names (letters, digits, "_", "-"), and reads this one as a regular expression; use "|"`
  }
  const rule = ruleShape.exec(text)
  if (rule !== null) {
    const [, tool, argument] = rule
    let pattern: RegExp | undefined
    try {
      pattern = new RegExp(text)
    } catch {
      // Reported whole by `matcherProblems`.
    }
    const matchesATool = pattern !== undefined && (pattern.test(tool!) || builtinToolNames.some((name) => pattern.test(name)))
    // A group construct in the argument (`(?:`, `(?=`, `(?<name>`) is no rule's syntax.
    const bare = argument!.replace(/\(\?(?:[:=!]|<[=!]?|<\w+>)/g, "(")
    if (!matchesATool && (builtinToolNames.some((name) => name === tool) || ruleArgument.test(bare))) {
      return ruleProblem(event, text, tool!)
    }
  }
  // Anchored at its start, a word names a tool whole or a prefix of one: no MCP tool's name
  // (`mcp__…`) starts in lowercase otherwise.
  const tool = start && /^[\w-]+$/.test(text) ? otherCase(text) : undefined
  return tool === undefined ? undefined : `the ${event} hook's matcher has "${start ? "^" : ""}${text}${end ? "$" : ""}", ` +
    `which names no tool: the CLI compares tool names with their case; write "${tool}"`
}

/** What is wrong with `matcher`, a hook's for `event`: one line a problem, none when it can match. */
export const matcherProblems = (event: string, matcher: string): ReadonlyArray<string> => {
  // `*` and `""` match every call.
  if (matcher === "*" || matcher === "") return []
  if (/^[a-zA-Z0-9_|, -]+$/.test(matcher)) {
    const names = matcher.split(/[|,]/).map((name) => name.trim())
    const servers = names.filter((name) => name.startsWith("mcp__") && !name.slice(5).includes("__")).map((name) =>
      `the ${event} hook's matcher names "${name}", which is no tool: the CLI reads a matcher of plain names as exact ` +
      `tool names, and a tool of an MCP server is "mcp__<server>__<tool>"; to match every tool of the server write "${name}__.*"`
    )
    const cases = names.flatMap((name) => {
      const tool = otherCase(name)
      return tool === undefined ? [] : [
        `the ${event} hook's matcher names "${name}", which is no tool: the CLI compares tool names with their case; write "${tool}"`
      ]
    })
    return [...servers, ...cases]
  }
  const alternatives = alternativesOf(matcher)
  try {
    new RegExp(matcher)
  } catch {
    const rule = alternatives.map((alternative) => ruleShape.exec(alternative.text)).find((rule) => rule !== null)
    return [
      `the ${event} hook's matcher "${matcher}" is no regular expression the CLI can compile, so it matches no tool` +
      (rule === undefined ? "" : `: "${rule[0]}" is written as a permission rule; match the tool ("${rule[1]}") and read its input in the handler`)
    ]
  }
  return alternatives.flatMap((alternative) => alternativeProblem(event, alternative) ?? [])
}
