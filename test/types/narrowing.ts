/**
 * Type tests, compiled by `npm run typecheck` (tsconfig.json includes `test/`) and never run.
 *
 * - `expect<T>()(value)` compiles only when the type of `value` is exactly `T`;
 * - a `// @ts-expect-error` line must NOT compile: if it ever does, the directive itself is an
 *   error ("Unused '@ts-expect-error' directive"), so both kinds of expectation can fail.
 *
 * What they pin: narrowing events, stream events, deltas and content blocks with plain `===`
 * (the catch-all members of the open unions have an `UnknownType` discriminant that no known
 * literal matches), while unknown members stay representable; and the built-in tools' inputs
 * typed in hooks and permission handlers by `tool_name`.
 */
import type * as Claude from "../../src/Claude.ts"
import * as Effect from "effect/Effect"
import type * as Events from "../../src/Events.ts"
import type * as HookEvents from "../../src/HookEvents.ts"
import * as Hooks from "../../src/Hooks.ts"
import type * as PermissionsModule from "../../src/Permissions.ts"
import * as Permissions from "../../src/Permissions.ts"
import * as Protocol from "../../src/Protocol.ts"

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false

/** Compiles only when the argument's type is exactly `Expected`. */
const expect = <Expected>() =>
<Actual>(_actual: Actual, ..._exact: Equals<Actual, Expected> extends true ? [] : [never]): void => {}

// -----------------------------------------------------------------------------
// stream events: stream_event → content_block_delta → text_delta
// -----------------------------------------------------------------------------

export const streamEvent = (event: Claude.Event): void => {
  if (event.type === "stream_event") {
    expect<Protocol.StreamEvent>()(event)
    if (event.event.type === "content_block_delta") {
      expect<Protocol.ContentBlockDeltaEvent>()(event.event)
      expect<number>()(event.event.index)
      const delta = event.event.delta
      if (delta.type === "text_delta") {
        expect<Protocol.TextDelta>()(delta)
        expect<string>()(delta.text)
      } else if (delta.type === "thinking_delta") {
        expect<string>()(delta.thinking)
      } else if (delta.type === "input_json_delta") {
        expect<string>()(delta.partial_json)
      } else if (delta.type === "signature_delta") {
        expect<string>()(delta.signature)
      } else {
        // Every known delta ruled out: only the catch-all is left, its type still a string.
        expect<Protocol.UnknownDelta>()(delta)
        const type: string = delta.type
        void type
      }
    }
    if (event.event.type === "message_delta") {
      expect<string | null>()(event.event.delta.stop_reason)
      expect<number>()(event.event.usage.output_tokens)
    }
    if (event.event.type === "content_block_start" && event.event.content_block.type === "tool_use") {
      expect<string>()(event.event.content_block.name)
    }
    if (event.event.type === "message_start") {
      expect<string>()(event.event.message.model)
    }
  }
}

/** The same chain in a `switch`, with the catch-all in `default` only. */
export const streamEventSwitch = (event: Protocol.ApiStreamEvent): string => {
  switch (event.type) {
    case "content_block_delta":
      return event.delta.type === "text_delta" ? event.delta.text : ""
    case "content_block_start":
    case "content_block_stop":
      return String(event.index)
    case "message_start":
      return event.message.id
    case "message_delta":
      return event.delta.stop_reason ?? ""
    case "message_stop":
    case "ping":
      return ""
    default:
      expect<Protocol.UnknownApiStreamEvent>()(event)
      return event.type
  }
}

// -----------------------------------------------------------------------------
// assistant content blocks
// -----------------------------------------------------------------------------

export const assistantBlocks = (event: Claude.Event): void => {
  if (event.type !== "assistant") return
  expect<Protocol.AssistantMessage>()(event)
  for (const block of event.message.content) {
    if (block.type === "text") {
      expect<Protocol.TextBlock>()(block)
      expect<string>()(block.text)
    }
    if (block.type === "tool_use") {
      expect<Protocol.ToolUseBlock>()(block)
      expect<string>()(block.name)
      expect<string>()(block.id)
      expect<{ readonly [x: string]: unknown }>()(block.input)
    }
    if (block.type === "thinking") {
      expect<string>()(block.thinking)
    }
  }
  // `filter` with a plain `===` narrows too.
  const texts = event.message.content.filter((block) => block.type === "text").map((block) => block.text)
  expect<Array<string>>()(texts)
}

export const blockSwitch = (block: Protocol.ContentBlock): string => {
  switch (block.type) {
    case "text":
      return block.text
    case "thinking":
      return block.thinking
    case "redacted_thinking":
      return block.data
    case "tool_use":
      return block.name
    case "tool_result":
      return block.tool_use_id
    case "image":
      return block.source.type
    case "tool_reference":
      return block.tool_name
    default: {
      expect<Protocol.UnknownContentBlock>()(block)
      // An unknown block's type is a string (assignable, comparable with strings, a key).
      const type: string = block.type
      const seen: Record<string, number> = {}
      seen[block.type] = 1
      return type
    }
  }
}

// -----------------------------------------------------------------------------
// user tool_result blocks
// -----------------------------------------------------------------------------

export const toolResults = (event: Claude.Event): void => {
  if (event.type !== "user") return
  const content = event.message.content
  if (typeof content === "string") return
  for (const block of content) {
    if (block.type === "tool_result") {
      expect<Protocol.ToolResultBlock>()(block)
      expect<string>()(block.tool_use_id)
      expect<boolean | undefined>()(block.is_error)
      const inner = block.content
      if (inner !== undefined && typeof inner !== "string") {
        for (const part of inner) {
          if (part.type === "text") expect<string>()(part.text)
        }
      }
    }
  }
}

// -----------------------------------------------------------------------------
// result, system/init
// -----------------------------------------------------------------------------

export const result = (event: Claude.Event): void => {
  if (event.type === "result") {
    expect<Events.TurnResult>()(event)
    expect<string | undefined>()(event.result)
    expect<boolean>()(event.is_error)
    expect<string>()(event.subtype)
    expect<number>()(event.turn.costUsd)
    expect<ReadonlyArray<string> | undefined>()(event.errors)
  }
}

export const systemInit = (event: Claude.Event): void => {
  if (event.type === "system") {
    if (event.subtype === "init") {
      expect<Protocol.SystemInit>()(event)
      expect<ReadonlyArray<string>>()(event.tools)
      expect<string>()(event.model)
    }
    if (event.subtype === "api_retry") {
      expect<Protocol.SystemApiRetry>()(event)
    }
  }
}

// -----------------------------------------------------------------------------
// What must not compile
// -----------------------------------------------------------------------------

export const mustNotCompile = (event: Claude.Event, block: Protocol.ContentBlock, unknown: Protocol.UnknownContentBlock): void => {
  if (event.type === "stream_event" && event.event.type === "content_block_delta") {
    // @ts-expect-error: not narrowed to a text delta yet (could be a thinking delta or unknown)
    const text: string = event.event.delta.text
    void text
  }
  if (block.type === "text") {
    // @ts-expect-error: a text block has no `name`
    void block.name
  }
  if (block.type !== "text") {
    // @ts-expect-error: every member but the text block is left
    expect<Protocol.TextBlock>()(block)
  }
  // @ts-expect-error: an unknown block's type is never a known one (no overlap)
  void (unknown.type === "text")
  // @ts-expect-error: an unknown type is no plain string literal: build it with Protocol.unknownType
  const plain: Protocol.ContentBlock = { type: "document", source: {} }
  void plain
  // @ts-expect-error: a known type in the catch-all's place
  const known: Protocol.UnknownContentBlock = { type: Protocol.unknownType("text") as "text", text: "x" }
  void known
  // @ts-expect-error: the expectation helper itself fails on a wrong type
  expect<number>()("text")
}

// -----------------------------------------------------------------------------
// Unknown members stay representable
// -----------------------------------------------------------------------------

export const representable: ReadonlyArray<Protocol.ContentBlock> = [
  { type: "text", text: "a" },
  { type: Protocol.unknownType("document"), source: { type: "base64" } }
]
export const unknownDelta: Protocol.ContentBlockDeltaPayload = {
  type: Protocol.unknownType("citations_delta"),
  citation: { cited_text: "x" }
}
export const unknownEvent: Protocol.ApiStreamEvent = { type: Protocol.unknownType("error"), error: {} }

// -----------------------------------------------------------------------------
// Built-in tools' inputs in hooks and permission handlers
// -----------------------------------------------------------------------------

export const preToolUse = Hooks.on("PreToolUse", (input) => {
  if (input.tool_name === "Bash") {
    expect<Protocol.BashInput>()(input.tool_input)
    expect<string>()(input.tool_input.command)
    expect<number | undefined>()(input.tool_input.timeout)
    expect<string | undefined>()(input.tool_input.description)
    expect<string>()(input.tool_use_id)
  } else if (input.tool_name === "Read") {
    expect<string>()(input.tool_input.file_path)
  } else if (input.tool_name === "Write") {
    expect<string>()(input.tool_input.content)
  } else if (input.tool_name === "Edit") {
    expect<string>()(input.tool_input.old_string)
  } else if (input.tool_name === "Glob" || input.tool_name === "Grep") {
    expect<string>()(input.tool_input.pattern)
  } else if (input.tool_name === "WebFetch") {
    expect<string>()(input.tool_input.url)
  } else if (input.tool_name === "WebSearch") {
    expect<string>()(input.tool_input.query)
  } else if (input.tool_name === "Agent" || input.tool_name === "Task") {
    expect<string>()(input.tool_input.prompt)
  } else if (input.tool_name === "TodoWrite") {
    expect<ReadonlyArray<Protocol.TodoItem>>()(input.tool_input.todos)
  } else if (input.tool_name === "NotebookEdit") {
    expect<string>()(input.tool_input.new_source)
  } else if (input.tool_name === "mcp__byre__echo") {
    // An MCP tool: a plain record.
    expect<{ readonly [key: string]: unknown }>()(input.tool_input)
    expect<unknown>()(input.tool_input.text)
  } else {
    // Any other tool: a record, and its name still a string.
    const record: { readonly [key: string]: unknown } = input.tool_input
    void record
    const name: string = input.tool_name
    void name
  }
  return Effect.succeed(Hooks.allow())
})

// A matcher that names built-in tools exactly narrows the input to them (the CLI matches a plain
// name, or a `|`-list of them, exactly).
export const byMatcher = Hooks.layer(
  Hooks.on("PreToolUse", { matcher: "Bash" }, (input) => {
    expect<"Bash">()(input.tool_name)
    expect<string>()(input.tool_input.command)
    return Effect.succeed(Hooks.allow())
  }),
  Hooks.on("PostToolUse", { matcher: "Edit|Write" }, (input) => {
    expect<"Edit" | "Write">()(input.tool_name)
    expect<string>()(input.tool_input.file_path)
    return Effect.succeed(Hooks.allow())
  }),
  // `Task` is the former name of `Agent`: the CLI sends `Agent` for it.
  Hooks.on("PreToolUse", { matcher: "Task" }, (input) => {
    expect<"Agent" | "Task">()(input.tool_name)
    expect<string>()(input.tool_input.prompt)
    return Effect.succeed(Hooks.allow())
  }),
  // A regular expression, an MCP tool, a tool without a typed input: no narrowing.
  Hooks.on("PreToolUse", { matcher: "Bash.*" }, (input) => {
    expect<HookEvents.HookInput<"PreToolUse">>()(input)
    return Effect.succeed(Hooks.allow())
  }),
  Hooks.on("PreToolUse", { matcher: "mcp__byre__echo" }, (input) => {
    expect<HookEvents.HookInput<"PreToolUse">>()(input)
    return Effect.succeed(Hooks.allow())
  }),
  Hooks.on("PreToolUse", { matcher: "Bash|Skill" }, (input) => {
    expect<HookEvents.HookInput<"PreToolUse">>()(input)
    return Effect.succeed(Hooks.allow())
  }),
  Hooks.on("PreToolUse", { matcher: String("Bash") }, (input) => {
    expect<HookEvents.HookInput<"PreToolUse">>()(input)
    return Effect.succeed(Hooks.allow())
  }),
  Hooks.on("PreToolUse", { timeout: "5 seconds" }, (input) => {
    expect<HookEvents.HookInput<"PreToolUse">>()(input)
    return Effect.succeed(Hooks.allow())
  }),
  // Events that are not about a tool ignore the matcher.
  Hooks.on("SessionStart", { matcher: "startup" }, (input) => {
    expect<HookEvents.SessionStartInput>()(input)
    return Effect.succeed(Hooks.allow())
  })
)

export const otherToolEvents = Hooks.layer(
  Hooks.on("PostToolUse", (input) => {
    if (input.tool_name === "Bash") expect<string>()(input.tool_input.command)
    expect<unknown>()(input.tool_response)
    return Effect.succeed(Hooks.allow())
  }),
  Hooks.on("PostToolUseFailure", (input) => {
    if (input.tool_name === "Edit") expect<string>()(input.tool_input.file_path)
    expect<string>()(input.error)
    return Effect.succeed(Hooks.allow())
  }),
  Hooks.on("PermissionRequest", (input) => {
    if (input.tool_name === "Write") expect<string>()(input.tool_input.file_path)
    return Effect.succeed(Hooks.allow())
  }),
  Hooks.on("PermissionDenied", (input) => {
    if (input.tool_name === "Bash") expect<string>()(input.tool_input.command)
    expect<string>()(input.reason)
    return Effect.succeed(Hooks.allow())
  }),
  // Events that are not about a tool keep their own input.
  Hooks.on("Stop", (input) => {
    expect<HookEvents.StopInput>()(input)
    return Effect.succeed(Hooks.allow())
  })
)

export const keyedForm = Hooks.layer({
  PreToolUse: [{
    matcher: "Bash",
    handler: (input) => {
      if (input.tool_name === "Bash") expect<string>()(input.tool_input.command)
      return Effect.succeed(Hooks.allow())
    }
  }]
})

export const permissions = Permissions.layer((request) => {
  expect<PermissionsModule.ToolPermissionRequest>()(request)
  if (request.tool_name === "Bash") {
    expect<string>()(request.input.command)
    expect<string>()(request.tool_use_id)
    return Effect.succeed(
      request.input.command.includes("curl") ? Permissions.deny("no network") : Permissions.allow()
    )
  }
  if (request.tool_name === "Write") expect<string>()(request.input.content)
  return Effect.succeed(Permissions.allow())
})

export const toolsMustNotCompile = Hooks.on("PreToolUse", (input) => {
  // @ts-expect-error: not narrowed: another tool's input has no string `command`
  const command: string = input.tool_input.command
  void command
  if (input.tool_name === "Read") {
    // @ts-expect-error: a Read input has no typed `command`
    expect<string>()(input.tool_input.command)
  }
  if (input.tool_name === "Bash") {
    // @ts-expect-error: `command` is a string, not a number
    expect<number>()(input.tool_input.command)
  }
  return Effect.succeed(Hooks.allow())
})

export const matcherMustNotCompile = Hooks.on("PreToolUse", { matcher: "Read" }, (input) => {
  // @ts-expect-error: a matcher of Read gives a Read input: no `command`
  expect<string>()(input.tool_input.command)
  // @ts-expect-error: and its tool is Read, never Bash
  void (input.tool_name === "Bash")
  return Effect.succeed(Hooks.allow())
})
