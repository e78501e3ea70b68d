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
 * goes on); a second Ctrl-C interrupts the running turn too and ends the session. Its temporary
 * HOME and cwd are removed on every way out, a closed stdout (`npm start | head`) included.
 *
 * Environment: `DEMO_SLOW=1` makes the fake model's Bash call take 30 s and its last answer
 * stream slowly (to try Ctrl-C); `DEMO_DEBUG=1` prints the CLI's pid, and how it exited.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Hooks from "../src/Hooks.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Permissions from "../src/Permissions.ts"
import type * as Protocol from "../src/Protocol.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import type { ExitStatus, Transport } from "../src/Transport.ts"
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

/*
 * One ordered output. The session's events are printed by one fiber as they come; hooks and the
 * permission handler run in fibers of their own, beside it. The library starts a handler after
 * the events read before its request have reached the printer, and a handler's line (`note`)
 * never goes inside streamed text either: while a text block streams, it waits for the block's
 * end.
 */
let atLineStart = true
/** A text block is being streamed: its text is printed, its end not yet. */
let streaming = false
/** Handlers' lines waiting for the streamed text block to end. */
const held: Array<string> = []
/** False once stdout is closed (`| head`, say): nothing more is written to it. */
let stdoutOpen = true
/** False once stderr is closed (`2>&1 | head`): nothing more is written to it. */
let stderrOpen = true

const out = (text: string): void => {
  if (stdoutOpen) process.stdout.write(text)
}
/** Writes streamed text as it comes. */
const write = (text: string): void => {
  if (text.length === 0) return
  out(text)
  atLineStart = text.endsWith("\n")
  streaming = true
}
/** Writes a whole line, on a line of its own. */
const line = (text: string): void => {
  out(`${atLineStart ? "" : "\n"}${text}\n`)
  atLineStart = true
}
/** The streamed text block ended: the lines held meanwhile are printed. */
const endOfText = (): void => {
  streaming = false
  for (const text of held.splice(0)) line(text)
}
/** A handler's line: at once, or after the text block being streamed. */
const note = (text: string): void => {
  if (streaming) held.push(text)
  else line(text)
}

const short = (text: string, max = 100): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

const textOf = (content: Protocol.ToolResultBlock["content"]): string =>
  typeof content === "string"
    ? content
    : content === undefined
    ? ""
    : content.map((block) => block.type === "text" ? block.text : "").join("\n")

const seconds = (millis: number): string => `${(millis / 1000).toFixed(1)} s`
const usd = (amount: number): string => `$${amount.toFixed(4)}`

/**
 * How a prompt's turn ended, as the renderer saw it: its result, or its withdrawal before it ran
 * (a prompt interrupted while the CLI still held it queued: it gets no result).
 */
type Ending =
  | { readonly _tag: "Result"; readonly result: Claude.TurnResult }
  | { readonly _tag: "Withdrawn"; readonly uuid: string }

/** What the renderer knows of the prompts: those the CLI said it got, those answered. */
interface Heard {
  /** The user messages the CLI wrote a `command_lifecycle` line of (it got them). */
  readonly got: Set<string>
  /**
   * The user messages whose turn has ended (CLI 2.1.332 also says `cancelled` of a prompt
   * interrupted while it ran, after its result: that one was not withdrawn).
   */
  readonly answered: Set<string>
}

/** Prints one event of the session. Returns how a turn ended, when it is one that says. */
const render = (event: Claude.Event, heard: Heard): Ending | undefined => {
  switch (event.type) {
    case "stream_event": {
      const e = event.event
      if (event.parent_tool_use_id !== null) return undefined
      if (e.type === "content_block_delta" && e.delta.type === "text_delta") write(e.delta.text)
      else if (e.type === "content_block_stop" || e.type === "message_stop") endOfText()
      return undefined
    }
    case "assistant": {
      // Its text was streamed whole before it (the CLI writes it before `content_block_stop`).
      endOfText()
      for (const block of event.message.content) {
        if (block.type === "tool_use") line(`${cyan("⏺")} ${bold(block.name)} ${dim(short(JSON.stringify(block.input), 110))}`)
      }
      return undefined
    }
    case "user": {
      endOfText()
      const content = event.message.content
      if (typeof content === "string") return undefined
      for (const block of content) {
        if (block.type !== "tool_result") continue
        const text = textOf(block.content)
        const lines = text.split("\n").filter((l) => l.trim() !== "")
        const more = lines.length > 1 ? dim(` (+${lines.length - 1} lines)`) : ""
        line(`  ⎿ ${block.is_error === true ? red(short(text, 90)) : short(lines[0] ?? "(no output)", 90)}${more}`)
      }
      return undefined
    }
    case "result": {
      endOfText()
      // An API error is `subtype: "success"` with `is_error: true`; `run` then fails with its reason.
      const ok = !event.is_error
      const interrupted = event.terminal_reason?.startsWith("aborted_") === true
      const reason = ok ? "" : ` (${event.subtype}${event.terminal_reason === undefined ? "" : `, ${event.terminal_reason}`})`
      line(
        `${ok ? green("✓ done") : interrupted ? yellow("✗ interrupted") : red("✗ failed")}${reason} · ${event.num_turns} model turn${
          event.num_turns === 1 ? "" : "s"
        } · ${seconds(event.duration_ms)} · ${usd(event.turn.costUsd)} this turn · ${usd(event.total_cost_usd)} so far`
      )
      for (const uuid of event.turn.userMessageUuids) heard.answered.add(uuid)
      return { _tag: "Result", result: event }
    }
    case "command_lifecycle": {
      heard.got.add(event.command_uuid)
      if (event.state !== "cancelled" || heard.answered.has(event.command_uuid)) return undefined
      endOfText()
      line(yellow("✗ withdrawn before it started"))
      return { _tag: "Withdrawn", uuid: event.command_uuid }
    }
    case "protocol_problem":
      endOfText()
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
        note(yellow(`⚑ Stop hook: not yet. "${SUMMARY_REQUEST}"`))
        return Hooks.block(SUMMARY_REQUEST)
      })),
    Hooks.on("PreToolUse", { matcher: "Bash" }, (input) =>
      Effect.sync(() => {
        const command = input.tool_input.command
        if (!/(^|[\s;&|])rm\s/.test(command)) return Hooks.allow()
        note(yellow(`⚑ PreToolUse hook: refused ${command}`))
        return Hooks.deny("This demo does not delete files.")
      }))
  )
}

/** Answers the CLI's permission requests (`--permission-mode default`): allows, and says so. */
const PermissionsLive = Permissions.layer((request) =>
  Effect.sync(() => {
    note(dim(`  permission: allow ${request.tool_name}`))
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

/**
 * What the tools did in this conversation, from the request's history (each tool call and its
 * result), in the model's words: a summary claims only what happened (an interrupted turn's
 * Bash command did not list anything, and the MCP tool was then never called).
 */
const summaryOf = (request: FakeModel.RecordedRequest): string => {
  const calls = new Map<string, { readonly name: string; readonly input: Record<string, unknown> }>()
  const done: Array<string> = []
  for (const message of request.messages) {
    if (typeof message.content === "string") continue
    for (const block of message.content) {
      if (block.type === "tool_use") {
        const input = typeof block.input === "object" && block.input !== null ? block.input as Record<string, unknown> : {}
        calls.set(String(block.id), { name: String(block.name), input })
      }
      if (block.type !== "tool_result") continue
      const call = calls.get(String(block.tool_use_id))
      if (call === undefined) continue
      const ok = block.is_error !== true
      // An interrupted tool call's result is an error saying the user rejected (stopped) it.
      const failed = /rejected|interrupt/i.test(JSON.stringify(block.content ?? "")) ? "it was interrupted" : "it failed"
      if (call.name === "Bash") {
        const listing = call.input.command === "ls"
        done.push(
          ok
            ? `${listing ? "listed this directory" : "ran a command"} with Bash`
            : `tried to ${listing ? "list this directory" : "run a command"} with Bash, but ${failed}`
        )
      } else if (call.name === "mcp__demo__add") {
        done.push(ok ? `added ${call.input.a} and ${call.input.b} with the demo MCP tool` : `tried the demo MCP tool, but ${failed}`)
      } else {
        done.push(ok ? `used ${call.name}` : `tried ${call.name}, but ${failed}`)
      }
    }
  }
  if (done.length === 0) return "Summary: I used no tool in this session."
  const listed = done.length === 1 ? done[0] : `${done.slice(0, -1).join(", ")} and ${done.at(-1)}`
  return `Summary: I ${listed}.`
}

/** The fake model answers from what the CLI sent: the conversation depends on the request. */
const demoScript = (slow: boolean): FakeModel.Script => (request) => {
  const stream = { chunks: 12, delayMs: 25 }
  const lastUser = FakeModel.lastUserMessage(request)
  const userText = FakeModel.lastUserText(request) ?? ""
  if (JSON.stringify(lastUser?.content ?? "").includes("Stop hook feedback")) {
    return FakeModel.text(summaryOf(request), stream)
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
 * Replaces the SIGINT listeners (NodeRuntime.runMain's among them) for the scope. The first
 * Ctrl-C during a turn interrupts that turn (the session goes on). The next one during a turn
 * interrupts it too and ends the session after it (`quitting`): the CLI, idle, then exits as
 * soon as its input ends, where closing the session during a turn would wait for the CLI to
 * finish it (three fifths of `closeGrace`) before ending it. One between turns, or one more while
 * quitting, goes to the previous listeners, which interrupt the main fiber at once. SIGINTs
 * within 300 ms count as one.
 */
const ctrlC = (currentTurn: () => Fiber.Fiber<unknown, unknown> | undefined) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const previous = process.listeners("SIGINT")
      const state = { quitting: false }
      let turnsInterrupted = 0
      let lastAt = 0
      const listener = () => {
        // One Ctrl-C can arrive twice (from the terminal, and forwarded by a wrapper process).
        const now = Date.now()
        if (now - lastAt < 300) return
        lastAt = now
        const turn = currentTurn()
        if (turn !== undefined && !state.quitting) {
          turnsInterrupted++
          if (turnsInterrupted === 1) {
            line(yellow("^C interrupting the turn (Ctrl-C again to quit)"))
          } else {
            state.quitting = true
            line(yellow("^C ending the session (its turn first)"))
          }
          turn.interruptUnsafe()
          return
        }
        line(yellow("^C ending the session"))
        for (const l of previous) l("SIGINT")
      }
      for (const l of previous) process.off("SIGINT", l)
      process.on("SIGINT", listener)
      return { previous, listener, state }
    }),
    ({ listener, previous }) =>
      Effect.sync(() => {
        process.off("SIGINT", listener)
        for (const l of previous) process.on("SIGINT", l as () => void)
      })
  ).pipe(Effect.map(({ state }) => state))

/**
 * Done when stdout or stderr is closed under the program (`npm start | head`, `2>&1 | head`:
 * EPIPE) or the terminal hangs up (SIGHUP). Without a listener Node would crash on the first, be
 * killed by the second, and no finalizer would run (the temporary HOME and cwd would stay behind).
 */
const outputGone: Effect.Effect<Effect.Effect<string>, never, Scope.Scope> = Effect.gen(function*() {
  const gone = yield* Deferred.make<string>()
  const closing = (stream: "stdout" | "stderr", closed: () => void) => (error: Error) => {
    closed()
    Deferred.doneUnsafe(gone, Exit.succeed(`${stream} closed (${(error as NodeJS.ErrnoException).code ?? error.message})`))
  }
  const onError = closing("stdout", () => stdoutOpen = false)
  const onStderrError = closing("stderr", () => stderrOpen = false)
  const onHangup = () => Deferred.doneUnsafe(gone, Exit.succeed("the terminal hung up"))
  yield* Effect.acquireRelease(
    Effect.sync(() => {
      process.stdout.on("error", onError)
      process.stderr.on("error", onStderrError)
      process.on("SIGHUP", onHangup)
    }),
    () =>
      Effect.sync(() => {
        process.off("SIGHUP", onHangup)
        // A closed stream can report a write made before it was known closed, later: its listener
        // stays then, or that report would crash the exit.
        if (stdoutOpen) process.stdout.off("error", onError)
        if (stderrOpen) process.stderr.off("error", onStderrError)
      })
  )
  return Deferred.await(gone)
})

/** The way out when the output is gone: exit code 141 (as for SIGPIPE), a line on stderr. */
class OutputGone extends Error {
  override readonly [Runtime.errorExitCode] = 141
  override readonly [Runtime.errorReported] = false
}

/** How the CLI ended, for `DEMO_DEBUG=1`: by itself (a code), or ended by the close (a signal). */
const describeExit = (status: ExitStatus): string =>
  status.signal === null ? `code ${status.code}` : `signal ${status.signal}`

/**
 * The prompts, each one a turn interruptible with Ctrl-C; the session ends after an interrupted
 * turn when Ctrl-C was pressed twice. The turns run in a scope inside the session's, so that a
 * program interrupted another way (a closed stdout, SIGTERM) interrupts the running turn on the
 * CLI before it closes the session (see `ctrlC`). Returns the results of the prompts that ran.
 */
const runPrompts = (
  session: Claude.Session,
  prompts: ReadonlyArray<string>,
  endings: Queue.Queue<Ending>,
  heard: Heard
): Effect.Effect<ReadonlyArray<Claude.TurnResult>, ClaudeError.ClaudeError> =>
  Effect.scoped(Effect.gen(function*() {
    let current: Fiber.Fiber<unknown, unknown> | undefined
    const interrupts = yield* ctrlC(() => current)
    const finished: Array<Claude.TurnResult> = []
    for (const text of prompts) {
      line(`\n${bold("›")} ${text}`)
      // Its own uuid, by which the renderer's endings are told apart from an automatic turn's.
      const uuid = crypto.randomUUID()
      const fiber = yield* Effect.forkScoped(session.run({ text, uuid }))
      current = fiber
      const exit = yield* Fiber.await(fiber)
      current = undefined
      if (Exit.isFailure(exit) && !Exit.hasInterrupts(exit)) return yield* Effect.failCause(exit.cause)
      // The turn has ended (an interrupted one too, within `interruptTimeout`), and its ending is
      // in `events`: the renderer prints it and hands it over (an interrupted turn's aborted
      // result, or its withdrawal when the CLI had not started it). Bounded for a turn the
      // library gave up on, whose result may never come; an interrupted prompt's ending was
      // published before its fiber ended, so it is in the renderer's hands at once, and a prompt
      // interrupted before it was written has none.
      const interrupted = Exit.isFailure(exit)
      const ending = yield* Queue.take(endings).pipe(
        Effect.repeat({ until: (ending) => endsTurn(ending, uuid) }),
        Effect.timeoutOption(interrupted ? "1 second" : "5 seconds")
      )
      if (Option.isNone(ending) && interrupted) {
        line(yellow(heard.got.has(uuid) ? "✗ interrupted (the CLI reported no end of it)" : "✗ withdrawn before it was sent"))
      }
      if (Option.isSome(ending) && ending.value._tag === "Result") finished.push(ending.value.result)
      if (interrupts.quitting) return yield* Effect.interrupt
    }
    return finished
  }))

/** Whether `ending` is that of the turn of the user message `uuid`. */
const endsTurn = (ending: Ending, uuid: string): boolean =>
  ending._tag === "Withdrawn" ? ending.uuid === uuid : ending.result.turn.userMessageUuids.includes(uuid)

/**
 * Prints the session's events as they come and runs the prompts on it; returns the results of
 * the prompts that ran. The renderer is one fiber for the whole session (automatic turns too).
 */
export const converse = (
  session: Claude.Session,
  prompts: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<Claude.TurnResult>, ClaudeError.ClaudeError, Scope.Scope> =>
  Effect.gen(function*() {
    const endings = yield* Queue.unbounded<Ending>()
    const heard: Heard = { got: new Set(), answered: new Set() }
    yield* session.events.pipe(
      Stream.runForEach((event) =>
        Effect.suspend(() => {
          const ending = render(event, heard)
          return ending === undefined ? Effect.void : Queue.offer(endings, ending)
        })
      ),
      Effect.ensuring(Effect.sync(endOfText)),
      Effect.forkScoped
    )
    return yield* runPrompts(session, prompts, endings, heard)
  })

/**
 * The whole session: picks the model, opens the session, runs the prompts, and prints a closing
 * line. Every resource (the fake model, the temporary HOME and cwd, the CLI) is scoped: it is
 * released on every way out, Ctrl-C and a closed stdout included.
 */
const demo: Effect.Effect<void, ClaudeError.ClaudeError, Scope.Scope | Transport> = Effect.gen(function*() {
  const started = Date.now()
  const debug = process.env.DEMO_DEBUG === "1"
  const prompt = process.argv.slice(2).join(" ").trim() || undefined
  const source = credentials()
  const plan = prompt !== undefined && source !== undefined
    ? realPlan(prompt, source)
    : yield* fakePlan(prompt, source === undefined ? "no credentials found" : "no prompt given")
  line(bold(plan.banner))

  // Added before the session: runs once it is closed.
  let opened: Claude.Session | undefined
  if (debug) {
    yield* Effect.addFinalizer(() =>
      opened === undefined
        ? Effect.void
        : Effect.flatMap(opened.exit, (status) => Effect.sync(() => line(dim(`[debug] claude exited: ${describeExit(status)}`))))
    )
  }
  const session = yield* Claude.open(plan.options)
  opened = session
  if (debug) line(dim(`[debug] claude pid ${session.pid}`))

  const finished = yield* converse(session, plan.prompts)

  const turns = finished.reduce((n, r) => n + r.num_turns, 0)
  const cost = finished.reduce((sum, r) => sum + r.turn.costUsd, 0)
  line(
    bold(
      `\nSession over: ${finished.length} prompt${finished.length === 1 ? "" : "s"}, ${turns} model turns, ` +
        `${seconds(Date.now() - started)}, ${usd(cost)} (the CLI's running total: ${usd(finished.at(-1)?.total_cost_usd ?? 0)}).`
    )
  )
})

/** The demo: the session, unless the output goes away first (then it ends, and cleans up). */
export const program: Effect.Effect<void, ClaudeError.ClaudeError> = Effect.gen(function*() {
  const gone = yield* outputGone
  yield* Effect.raceFirst(
    demo,
    Effect.flatMap(gone, (why) =>
      Effect.andThen(
        Effect.sync(() => {
          if (stderrOpen) process.stderr.write(`effect-claude-code demo: ${why}; ending the session\n`)
        }),
        Effect.die(new OutputGone(why))
      ))
  )
}).pipe(Effect.scoped, Effect.provide(Layer.suspend(() => Layer.merge(processLayer, agentLayer()))))

if (isMain(import.meta)) NodeRuntime.runMain(program)
