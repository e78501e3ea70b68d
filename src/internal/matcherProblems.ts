/**
 * Hook matchers that match no tool though they look as if they meant some, so the hook never
 * runs and a guard guards nothing, silently. How CLI 2.1.332 reads a matcher (`toolMatcher.ts`):
 * one of plain names is a list of exact tool names; anything else is one regular expression, not
 * anchored, tried on the tool's name. A tool's name is letters, digits, `_` and `-` (an MCP tool's
 * is `mcp__<server>__<tool>` with every other character made `_`).
 *
 * Only what is certain is refused: a regular expression may mean tools the library cannot see
 * (an MCP server's), so an alternative is refused only when it can match no tool name at all (it
 * needs a character no name has, or it is a permission rule) or names a built-in tool in another
 * case where its anchor leaves no room for another name (`^bash$`).
 */
import type { ToolEvent } from "../HookEvents.ts"
import { builtinToolNames } from "../protocol/tools.ts"
import { plainNames } from "./toolMatcher.ts"

/**
 * Calls `visit` with each character of `pattern` outside escapes and character classes, with its
 * index and the group depth before it; stops when `visit` returns true.
 */
const walk = (pattern: string, visit: (char: string, index: number, depth: number) => boolean | void): void => {
  let depth = 0
  let inClass = false
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!
    if (char === "\\") i++
    else if (inClass) inClass = char !== "]"
    else if (char === "[") inClass = true
    else {
      if (visit(char, i, depth) === true) return
      if (char === "(") depth++
      else if (char === ")") depth = Math.max(0, depth - 1)
    }
  }
}

/** Where the group opened at 0 in `text` closes; -1 if it does not. */
const closingOfFirst = (text: string): number => {
  let at = -1
  walk(text, (char, index, depth) => {
    if (char === ")" && depth === 1) {
      at = index
      return true
    }
  })
  return at
}

/** The top-level alternatives of a regular expression (`a|b(c|d)`: `a`, `b(c|d)`). */
const topLevel = (pattern: string): Array<string> => {
  const parts: Array<string> = []
  let start = 0
  walk(pattern, (char, index, depth) => {
    if (char === "|" && depth === 0) {
      parts.push(pattern.slice(start, index))
      start = index + 1
    }
  })
  parts.push(pattern.slice(start))
  return parts
}

/** One alternative of a regular expression, with whether it is anchored at its start. */
interface Alternative {
  readonly text: string
  readonly start: boolean
  readonly end: boolean
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
    const plain = (text.startsWith("(") && !text.startsWith("(?")) || text.startsWith("(?:")
    if (plain && closingOfFirst(text) === text.length - 1) {
      return alternativesOf(text.slice(text.startsWith("(?:") ? 3 : 1, -1), anchoredStart, anchoredEnd)
    }
    return [{ text, start: anchoredStart, end: anchoredEnd }]
  })

/** A character a tool's name may have. */
const nameChar = /[A-Za-z0-9_-]/
/** A regular expression's characters that are no literal of their own. */
const syntax = new Set([".", "*", "+", "?", "(", ")", "[", "]", "{", "}", "|", "^", "$", "\\"])
/** A quantifier after an atom that lets it be absent. */
const optional = /^(?:[?*]|\{0(?:,\d*)?\})/
/** A quantifier in braces (`{2}`, `{1,3}`, `{2,}`), where a `{` is no literal. */
const braces = /^\{\d+(?:,\d*)?\}/

/**
 * A character outside group constructs that `text` needs and no tool's name has (`:` of
 * `Bash:x`, `\(` of `Bash\(rm`, `[(]`, `,` of `Write,Edit`), if any.
 */
const neededForeignChar = (text: string): string | undefined => {
  let depth = 0
  for (let i = 0; i < text.length;) {
    const char = text[i]!
    let literal: string | undefined
    let next = i + 1
    if (char === "\\") {
      const escaped = text[i + 1] ?? ""
      // `\w`, `\d`, `\b`, a backreference (`\1`, `\k<name>`): no literals.
      literal = /[A-Za-z0-9]/.test(escaped) ? undefined : escaped
      next = escaped === "k" && text[i + 2] === "<" ? text.indexOf(">", i) + 1 || text.length : i + 2
    } else if (char === "[") {
      let close = i + 1
      while (close < text.length && text[close] !== "]") close += text[close] === "\\" ? 2 : 1
      const members = text.slice(i + 1, close)
      // A class of foreign characters only (no range, no escape class): `[(]`, `[:,]`.
      if (depth === 0 && !members.startsWith("^") && members.length > 0 && !/\\[A-Za-z0-9]|-/.test(members)) {
        const chars = members.replace(/\\(.)/g, "$1")
        if (![...chars].some((member) => nameChar.test(member))) literal = chars[0]
      }
      next = close + 1
    } else if (char === "(") {
      depth++
    } else if (char === ")") {
      depth = Math.max(0, depth - 1)
    } else if (char === "{" && braces.test(text.slice(i))) {
      next = i + braces.exec(text.slice(i))![0].length
    } else if (!syntax.has(char)) {
      literal = char
    }
    if (depth === 0 && literal !== undefined && !nameChar.test(literal) && !optional.test(text.slice(next))) return literal
    i = next
  }
  return undefined
}

/** A permission rule's shape: a name, then `(…)` (`Bash(rm:*)`, `Read(./secrets/**)`), not a `(?…)` group. */
const ruleShape = /^([A-Za-z][\w-]*)\((?!\?)(.*)\)$/
/** What a permission rule's argument has and a group of tool names does not. */
const ruleArgument = /[:\s/~=]|\*\*|^\*/

/** The built-in tool whose name `name` is in another case, if any. */
const otherCase = (name: string): string | undefined =>
  builtinToolNames.find((tool) => tool !== name && tool.toLowerCase() === name.toLowerCase())

const ruleProblem = (event: string, rule: string, tool: string) =>
  `the ${event} hook's matcher has "${rule}", written as a permission rule, which the CLI reads as a regular ` +
  `expression over tool names that matches no tool: match the tool ("${tool}") and read its input in the handler`

/** A glob of names with an "any" after `_` (`mcp__*__delete`), as permission rules are written. */
const globShape = /^[\w-]*_\*[\w*-]*$/

/**
 * A glob (`mcp__*__delete`: "the delete tool of any server") that the CLI, reading a regular
 * expression where `_*` is any number of `_`, reads as no name the glob means (`mcp__x__delete`)
 * and as no built-in tool's: it needs a server (or tool) name of underscores alone.
 */
const globProblem = (event: string, { end, start, text }: Alternative): string | undefined => {
  if (!globShape.test(text)) return undefined
  const anchored = (body: string) => `${start ? "^" : ""}${body}${end ? "$" : ""}`
  let pattern: RegExp
  try {
    pattern = new RegExp(anchored(text))
  } catch {
    return undefined
  }
  if (pattern.test(text.replaceAll("*", "x")) || builtinToolNames.some((name) => pattern.test(name))) return undefined
  return `the ${event} hook's matcher has "${anchored(text)}", a glob as permission rules are written, which the CLI ` +
    `reads as a regular expression, where "_*" is any number of "_": it matches none of the tools the glob means; ` +
    `write "${anchored(text.replaceAll("*", ".*"))}"`
}

/** What is wrong with one alternative of a regular-expression matcher, if anything. */
const alternativeProblem = (event: string, alternative: Alternative): string | undefined => {
  const { end, start, text } = alternative
  const glob = globProblem(event, alternative)
  if (glob !== undefined) return glob
  const rule = ruleShape.exec(text)
  if (rule !== null) {
    const [, tool, argument] = rule
    let pattern: RegExp | undefined
    try {
      pattern = new RegExp(text)
    } catch {
      // An alternative alone may not compile where the whole did (a backreference to another's group).
    }
    const matchesATool = pattern === undefined || pattern.test(tool!) || builtinToolNames.some((name) => pattern.test(name))
    // A group construct in the argument (`(?:`, `(?=`, `(?<name>`) is no rule's syntax.
    const bare = argument!.replace(/\(\?(?:[:=!]|<[=!]|<\w+>)/g, "(")
    if (!matchesATool && (builtinToolNames.some((name) => name === tool) || ruleArgument.test(bare))) {
      return ruleProblem(event, text, tool!)
    }
  }
  const foreign = neededForeignChar(text)
  if (foreign !== undefined) {
    return `the ${event} hook's matcher has "${text}", which needs "${foreign}", which no tool's name has (names are ` +
      `letters, digits, "_" and "-"; the CLI separates names with "," or "|" only in a matcher of plain names): it matches no tool`
  }
  // Anchored at its start, a word names a tool whole or a prefix of one: no MCP tool's name
  // (`mcp__…`) starts in lowercase otherwise.
  const tool = start && /^[\w-]+$/.test(text) ? otherCase(text) : undefined
  return tool === undefined ? undefined : `the ${event} hook's matcher has "^${text}${end ? "$" : ""}", ` +
    `which names no tool: the CLI compares tool names with their case; write "${tool}"`
}

/**
 * The events whose matcher the CLI tries on a tool's name (its binary's dispatch:
 * `HookEvents.ToolEvent` and `PreSkillShellCommand`); another event's is tried on another string
 * (a subagent's type `plugin:agent`, a command's name, a file's name), which the checks of tool
 * names know nothing of. A matcher that does not compile matches nothing on any event.
 */
const toolEvents: ReadonlySet<string> = new Set([
  ...([
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied"
  ] satisfies ReadonlyArray<ToolEvent>),
  "PreSkillShellCommand"
])

/** What is wrong with `matcher`, a hook's for `event`: one line a problem, none when it can match. */
export const matcherProblems = (event: string, matcher: string): ReadonlyArray<string> => {
  // `*` and `""` match every call.
  if (matcher === "*" || matcher === "") return []
  const names = plainNames(matcher)
  if (!toolEvents.has(event)) {
    if (names !== undefined) return []
    try {
      new RegExp(matcher)
      return []
    } catch {
      return [`the ${event} hook's matcher "${matcher}" is no regular expression the CLI can compile, so it matches nothing`]
    }
  }
  if (names !== undefined) {
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
      (rule === undefined ? "" : `: ${ruleProblem(event, rule[0], rule[1]!)}`)
    ]
  }
  return alternatives.flatMap((alternative) => alternativeProblem(event, alternative) ?? [])
}
