/**
 * `npm start`: a whole agent session in the terminal.
 *
 * With no credentials (or no prompt) the real `claude` CLI of this repository talks to the
 * library's fake model on 127.0.0.1, which plays a scripted conversation: no network, no key,
 * a few seconds. With `ANTHROPIC_API_KEY` set (or a logged-in `claude`) and a prompt,
 * `npm start -- "your prompt"` runs the same program against the real model.
 *
 * What it shows: assistant text streaming as it arrives, each tool call with its input and a
 * short result (Bash, and a typed in-process MCP tool), a Stop hook that blocks once, a
 * permission handler, and per-turn cost. Ctrl-C during a turn interrupts that turn (the session
 * goes on); a second Ctrl-C ends the session.
 *
 * Environment: `DEMO_SLOW=1` makes the fake model's Bash call take 30 s and its last answer
 * stream slowly (to try Ctrl-C); `DEMO_DEBUG=1` prints the CLI's pid.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Hooks from "../src/Hooks.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { cliPath, fakeModel, isMain, processLayer } from "./support.ts"

// ---------------------------------------------------------------------------------------------
// The terminal
// ---------------------------------------------------------------------------------------------

const color = process.stdout.isTTY === true && process.env.NO_COLOR === undefined
const paint = (code: string) => (s: string) => color ? `\x1b[${code}m${s}\x1b[0m` : s
const dim = paint("2")
const bold = paint("1")
const cyan = paint("36")
const yellow = paint("33")
const green = paint("32")
const red = paint("31")

let atLineStart = true
/** Writes streamed text as it comes. */
const write = (text: string): void => {
  if (text.length === 0) return
  process.stdout.write(text)
  atLineStart = text.endsWith("\n")
}
/** Writes a whole line, on a line of its own. */
const line = (text: string): void => {
  process.stdout.write(`${atLineStart ? "" : "\n"}${text}\n`)
  atLineStart = true
}

const short = (text: string, max = 100): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((block: { type?: unknown; text?: unknown }) => typeof block.text === "string" ? block.text : "").join("\n")
    : ""

const seconds = (millis: number): string => `${(millis / 1000).toFixed(1)} s`
const usd = (amount: number): string => `$${amount.toFixed(4)}`

/** Prints one event of the session. Returns the result, when it is one. */
const render = (event: Claude.Event): Claude.TurnResult | undefined => {
  switch (event.type) {
    case "stream_event": {
      const e = event.event as { type?: unknown; delta?: { type?: unknown; text?: unknown } }
      if (event.parent_tool_use_id === null && e.type === "content_block_delta" && e.delta?.type === "text_delta") {
        write(String(e.delta.text))
      }
      return undefined
    }
    case "assistant": {
      for (const block of event.message.content as ReadonlyArray<{ type: string; name?: string; input?: unknown }>) {
        if (block.type === "tool_use") line(`${cyan("⏺")} ${bold(String(block.name))} ${dim(short(JSON.stringify(block.input), 110))}`)
      }
      return undefined
    }
    case "user": {
      const content = event.message.content
      if (!Array.isArray(content)) return undefined
      for (const block of content as ReadonlyArray<{ type: string; content?: unknown; is_error?: boolean }>) {
        if (block.type !== "tool_result") continue
        const text = textOf(block.content)
        const lines = text.split("\n").filter((l) => l.trim() !== "")
        const more = lines.length > 1 ? dim(` (+${lines.length - 1} lines)`) : ""
        line(`  ⎿ ${block.is_error === true ? red(short(text, 90)) : short(lines[0] ?? "(no output)", 90)}${more}`)
      }
      return undefined
    }
    case "result": {
      // An API error is `subtype: "success"` with `is_error: true`; `run` then fails with its reason.
      const ok = !event.is_error
      const interrupted = event.terminal_reason?.startsWith("aborted_") === true
      const reason = ok ? "" : ` (${event.subtype}${event.terminal_reason === undefined ? "" : `, ${event.terminal_reason}`})`
      line(
        `${ok ? green("✓ done") : interrupted ? yellow("✗ interrupted") : red("✗ failed")}${reason} · ${event.num_turns} model turn${
          event.num_turns === 1 ? "" : "s"
        } · ${seconds(event.duration_ms)} · ${usd(event.turn.costUsd)} this turn · ${usd(event.total_cost_usd)} so far`
      )
      return event
    }
    case "protocol_problem":
      line(red(`protocol problem: ${event.error.description}`))
      return undefined
    default:
      return undefined
  }
}

// ---------------------------------------------------------------------------------------------
// What the agent gets: hooks, a permission handler, an in-process MCP tool
// ---------------------------------------------------------------------------------------------

const SUMMARY_REQUEST = "Finish with a one-line summary of what you did."

/**
 * A Stop hook that sends the model back once in the session (with a reason the model reads),
 * and a PreToolUse hook that refuses `rm`.
 */
const hooksLayer = () => {
  let blocked = false
  return Hooks.layer(
    Hooks.on("Stop", (input) =>
      Effect.sync(() => {
        if (input.stop_hook_active || blocked) return Hooks.allow()
        blocked = true
        line(yellow(`⚑ Stop hook: not yet. "${SUMMARY_REQUEST}"`))
        return Hooks.block(SUMMARY_REQUEST)
      })),
    Hooks.on("PreToolUse", { matcher: "Bash" }, (input) =>
      Effect.sync(() => {
        const command = String((input.tool_input as { command?: unknown }).command ?? "")
        if (!/(^|[\s;&|])rm\s/.test(command)) return Hooks.allow()
        line(yellow(`⚑ PreToolUse hook: refused ${command}`))
        return Hooks.deny("This demo does not delete files.")
      }))
  )
}

/** Answers the CLI's permission requests (`--permission-mode default`): allows, and says so. */
const PermissionsLive = Permissions.layer((request) =>
  Effect.sync(() => {
    line(dim(`  permission: allow ${request.tool_name}`))
    return Permissions.allow()
  })
)

/** A typed tool served in-process: the CLI calls it over the control channel. */
const add = McpServers.tool({
  name: "add",
  description: "Adds two numbers.",
  input: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  handler: ({ a, b }) => Effect.succeed(`${a} + ${b} = ${a + b}`)
})
const McpLive = McpServers.layer(McpServers.server("demo", { tools: [add], alwaysLoad: true }))

const agentLayer = () => Layer.mergeAll(hooksLayer(), PermissionsLive, McpLive)

// ---------------------------------------------------------------------------------------------
// The fake model's side of the conversation
// ---------------------------------------------------------------------------------------------

const SLOW_COMMAND = "node -e \"setTimeout(() => console.log('done'), 30000)\""

const toolNameOf = (request: FakeModel.RecordedRequest, toolUseId: string): string | undefined => {
  for (const message of request.messages) {
    if (message.role !== "assistant" || typeof message.content === "string") continue
    for (const block of message.content) {
      if (block.type === "tool_use" && block.id === toolUseId) return String(block.name)
    }
  }
  return undefined
}

/** The fake model answers from what the CLI sent: the conversation depends on the request. */
const demoScript = (slow: boolean): FakeModel.Script => (request) => {
  const stream = { chunks: 12, delayMs: 25 }
  const lastUser = FakeModel.lastUserMessage(request)
  const userText = FakeModel.lastUserText(request) ?? ""
  if (JSON.stringify(lastUser?.content ?? "").includes("Stop hook feedback")) {
    return FakeModel.text("Summary: I listed this directory with Bash and added 2 and 3 with the demo MCP tool.", stream)
  }
  if (/goodbye/i.test(userText)) {
    return FakeModel.text(
      "Goodbye! This session ran the real claude CLI against a fake model, so nothing left this machine.",
      slow ? { chunks: 100, delayMs: 150 } : stream
    )
  }
  const [toolResult] = FakeModel.toolResults(request)
  if (toolResult !== undefined) {
    return toolNameOf(request, toolResult.toolUseId) === "Bash"
      ? FakeModel.blocks([
        FakeModel.text("Now the in-process MCP tool, with typed input:"),
        FakeModel.toolUse("mcp__demo__add", { a: 2, b: 3 })
      ], stream)
      : FakeModel.text(`The tool answered "${toolResult.content}".`, stream)
  }
  return FakeModel.blocks([
    FakeModel.text("Hello! I am the fake model. Let me look at the working directory first."),
    FakeModel.toolUse("Bash", { command: slow ? SLOW_COMMAND : "ls", description: "List the working directory" })
  ], stream)
}

// ---------------------------------------------------------------------------------------------
// The program
// ---------------------------------------------------------------------------------------------

/** Where the CLI would find credentials for the real model, if anywhere. */
const credentials = (): string | undefined => {
  for (const name of ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"]) {
    if ((process.env[name] ?? "") !== "") return name
  }
  const file = Path.join(Os.homedir(), ".claude", ".credentials.json")
  return Fs.existsSync(file) ? file : undefined
}

interface Plan {
  readonly banner: string
  readonly options: Claude.SessionOptions
  readonly prompts: ReadonlyArray<string>
}

const fakePlan = (prompt: string | undefined, why: string): Effect.Effect<Plan, never, Scope.Scope> =>
  Effect.gen(function*() {
    const setup = yield* fakeModel(demoScript(process.env.DEMO_SLOW === "1"), { permissionMode: "default" })
    Fs.writeFileSync(Path.join(setup.cwd, "notes.md"), "# Notes\n")
    Fs.writeFileSync(Path.join(setup.cwd, "hello.ts"), "console.log('hello')\n")
    return {
      banner: `effect-claude-code demo: FAKE model at ${setup.model.url} (${why}: no network, no key), ` +
        `real CLI ${Path.relative(process.cwd(), cliPath) || cliPath}, fresh HOME ${setup.home}`,
      options: setup.options,
      prompts: [prompt ?? "Look around, then add 2 and 3 with the demo tool.", "Thanks! Now say goodbye."]
    }
  })

const realPlan = (prompt: string, source: string): Plan => ({
  banner: `effect-claude-code demo: REAL model (credentials from ${source}), CLI ${cliPath}`,
  options: { executable: cliPath, permissionMode: "default" },
  prompts: [prompt]
})

/**
 * Replaces the SIGINT listeners (NodeRuntime.runMain's among them) for the scope: the first
 * Ctrl-C interrupts the running turn, the next one (or one between turns) is handed to the
 * previous listeners, which interrupt the main fiber. SIGINTs within 300 ms count as one.
 */
const ctrlC = (currentTurn: () => Fiber.Fiber<unknown, unknown> | undefined) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const previous = process.listeners("SIGINT")
      let turnsInterrupted = 0
      let lastAt = 0
      const listener = () => {
        // One Ctrl-C can arrive twice (from the terminal, and forwarded by a wrapper process).
        const now = Date.now()
        if (now - lastAt < 300) return
        lastAt = now
        const turn = currentTurn()
        if (turn !== undefined && turnsInterrupted === 0) {
          turnsInterrupted++
          line(yellow("^C interrupting the turn (Ctrl-C again to quit)"))
          turn.interruptUnsafe()
          return
        }
        line(yellow("^C ending the session"))
        for (const l of previous) l("SIGINT")
      }
      for (const l of previous) process.off("SIGINT", l)
      process.on("SIGINT", listener)
      return { previous, listener }
    }),
    ({ listener, previous }) =>
      Effect.sync(() => {
        process.off("SIGINT", listener)
        for (const l of previous) process.on("SIGINT", l as () => void)
      })
  )

/**
 * The whole session: picks the model, opens the session, runs the prompts (each one a turn,
 * interruptible with Ctrl-C), and prints a closing line.
 */
export const program: Effect.Effect<void, ClaudeError.ClaudeError> = Effect.gen(function*() {
  const started = Date.now()
  const prompt = process.argv.slice(2).join(" ").trim() || undefined
  const source = credentials()
  const plan = prompt !== undefined && source !== undefined
    ? realPlan(prompt, source)
    : yield* fakePlan(prompt, source === undefined ? "no credentials found" : "no prompt given")
  line(bold(plan.banner))

  const session = yield* Claude.open(plan.options)
  if (process.env.DEMO_DEBUG === "1") line(dim(`[debug] claude pid ${session.pid}`))

  // One renderer for the whole session; it hands each result to the main fiber.
  const results = yield* Queue.unbounded<Claude.TurnResult>()
  yield* session.events.pipe(
    Stream.runForEach((event) =>
      Effect.suspend(() => {
        const result = render(event)
        return result === undefined ? Effect.void : Queue.offer(results, result)
      })
    ),
    Effect.forkScoped
  )

  let current: Fiber.Fiber<unknown, unknown> | undefined
  yield* ctrlC(() => current)

  const finished: Array<Claude.TurnResult> = []
  for (const text of plan.prompts) {
    line(`\n${bold("›")} ${text}`)
    const fiber = yield* Effect.forkChild(session.run(text))
    current = fiber
    const exit = yield* Fiber.await(fiber)
    current = undefined
    if (Exit.isFailure(exit) && !Exit.hasInterrupts(exit)) return yield* exit
    // The interrupted turn still ends with its (aborted) result, which the renderer prints.
    const shown = yield* Queue.take(results).pipe(Effect.timeoutOption("5 seconds"))
    if (Option.isSome(shown)) finished.push(shown.value)
  }

  const turns = finished.reduce((n, r) => n + r.num_turns, 0)
  const cost = finished.reduce((sum, r) => sum + r.turn.costUsd, 0)
  line(
    bold(
      `\nSession over: ${finished.length} prompt${finished.length === 1 ? "" : "s"}, ${turns} model turns, ` +
        `${seconds(Date.now() - started)}, ${usd(cost)} (the CLI's running total: ${usd(finished.at(-1)?.total_cost_usd ?? 0)}).`
    )
  )
}).pipe(Effect.scoped, Effect.provide(Layer.suspend(() => Layer.merge(processLayer, agentLayer()))))

if (isMain(import.meta)) NodeRuntime.runMain(program)
