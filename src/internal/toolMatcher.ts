/**
 * A hook's `matcher` against a tool name, as CLI 2.1.332 reads it (its binary): the testing kit's
 * `FakeCli.callHook` picks callbacks with it, and a session finds which `PermissionRequest` hooks
 * the CLI asks about a tool call.
 */

/**
 * The former names of tools, by which a matcher still names them: CLI 2.1.332's table (its
 * binary), `Task` being `Agent`'s.
 */
const formerNames: Readonly<Record<string, string>> = {
  Task: "Agent",
  KillShell: "TaskStop",
  KillBash: "TaskStop",
  ListPeers: "ListAgents",
  Brief: "SendUserMessage",
  ListMcpResources: "ListMcpResourcesTool",
  ReadMcpResource: "ReadMcpResourceTool",
  ReadMcpResourceDir: "ReadMcpResourceDirTool",
  ProposeGoal: "SetGoal"
}

/** A tool's name and its former names. */
const namesOf = (toolName: string): ReadonlyArray<string> => [
  toolName,
  ...Object.keys(formerNames).filter((former) => formerNames[former] === toolName)
]

/**
 * The names of a matcher the CLI reads as a list of exact tool names (letters, digits, `_`, `-`
 * and spaces, separated by `|` or `,`); undefined for one it reads as a regular expression.
 */
export const plainNames = (matcher: string): ReadonlyArray<string> | undefined =>
  /^[a-zA-Z0-9_|, -]+$/.test(matcher) ? matcher.split(/[|,]/).map((name) => name.trim()) : undefined

/**
 * A CLI matcher against a tool name, as CLI 2.1.332 reads it for the tool events: `*` or none
 * matches every tool; names (letters, digits, `_`, `-`, separated by `|` or `,`) are compared
 * exactly, a former name (`Task`, `KillShell`, …) naming its tool too; anything else is a
 * regular expression, not anchored (`mcp__.*__write` matches `mcp__fs__write_file`), tried on
 * the tool's name and its former names (`^Task$` matches `Agent`); one that does not compile
 * matches nothing.
 */
export const matches = (matcher: unknown, toolName: string | undefined): boolean => {
  if (toolName === undefined || matcher === undefined || matcher === null || matcher === "" || matcher === "*") return true
  const text = String(matcher)
  const names = plainNames(text)
  if (names !== undefined) {
    return names.some((name) =>
      name !== "" && (name === toolName || (Object.hasOwn(formerNames, name) && formerNames[name] === toolName))
    )
  }
  try {
    const pattern = new RegExp(text)
    return namesOf(toolName).some((name) => pattern.test(name))
  } catch {
    return false
  }
}

/**
 * The other names CLI 2.1.332 asks a tool call's `PreToolUse` and `PermissionRequest` hooks by
 * (its binary's `yEe`): a `Monitor` call with a command is a `Bash` one too, whose hooks it calls
 * with `tool_name: "Bash"` and the command.
 */
const callNames = (toolName: string, input: unknown): ReadonlyArray<string> =>
  toolName === "Monitor" && typeof input === "object" && input !== null &&
    typeof (input as { readonly command?: unknown }).command === "string" &&
    (input as { readonly command: string }).command !== ""
    ? ["Bash"]
    : []

/**
 * A CLI matcher against a tool call of a `PreToolUse` or `PermissionRequest` hook, as CLI 2.1.332
 * reads it: {@link matches} on the tool's name, or on another name it calls those hooks by
 * ({@link callNames}); a matcher with a negative lookaround or a negated class (`(?!`, `(?<!`,
 * `[^`) only by another name it writes out (`^(?!Monitor)` does not mean `Bash`).
 */
export const matchesCall = (matcher: unknown, toolName: string | undefined, input: unknown): boolean =>
  matches(matcher, toolName) || (toolName !== undefined && callNames(toolName, input).some((name) => {
    const text = typeof matcher === "string" ? matcher : undefined
    return (text === undefined || !/\(\?<?!|\[\^/.test(text) || text.includes(name)) && matches(matcher, name)
  }))
