/**
 * The conformance scenarios, defined once: `scripts/record.ts` runs them against the real CLI to
 * record `testdata/transcripts/`, and `test/Conformance.test.ts` runs them live AND replays the
 * recordings through the same library code, comparing the observable summaries.
 *
 * A scenario opens its sessions through a `Harness` (live: the real CLI and the fake model, with
 * an optional recorder; replay: `Replay.layer` of the n-th recorded session), so the same
 * function drives both.
 */
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Hooks from "../src/Hooks.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Transcript from "../src/Transcript.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Replay from "../src/testing/Replay.ts"
import { live, processLayer } from "./support/live.ts"

/** Where the recordings live. */
export const transcriptsDir: string = Path.resolve(import.meta.dirname, "../testdata/transcripts")

/** The file of the `index`-th session (0-based) of a scenario. */
export const transcriptPath = (name: string, index: number): string =>
  Path.join(transcriptsDir, index === 0 ? `${name}.ndjson` : `${name}.${index + 1}.ndjson`)

/** Opens the sessions of a scenario. */
export interface Harness {
  readonly open: (options?: Partial<Claude.SessionOptions>) => Effect.Effect<Claude.Session, ClaudeError.ClaudeError, Scope.Scope>
}

/** What a scenario shows: event types and their key fields, no ids, times or costs. */
export type Summary = ReadonlyArray<string>

export interface Scenario {
  readonly name: string
  /** The fake model's script (live runs only). */
  readonly model: FakeModel.Script
  readonly run: (harness: Harness) => Effect.Effect<Summary, ClaudeError.ClaudeError, Scope.Scope>
}

// ---- summaries ----------------------------------------------------------------------------

const blockSummary = (block: unknown): string => {
  const b = block as { type?: unknown; text?: unknown; name?: unknown; is_error?: unknown }
  switch (b.type) {
    case "text":
      return `text:${String(b.text).replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>")}`
    case "tool_use":
      return `tool_use:${String(b.name)}`
    case "tool_result":
      return `tool_result:${b.is_error === true ? "error" : "ok"}`
    default:
      return String(b.type)
  }
}

/** One line per event that says something stable; `stream_event`s, status lines and the like are left out. */
export const summarize = (events: ReadonlyArray<Claude.Event>): Summary =>
  events.flatMap((event): Array<string> => {
    switch (event.type) {
      case "system":
        return event.subtype === "init" ? ["system/init"] : []
      case "assistant": {
        const content = (event.message as { content?: unknown }).content
        return Array.isArray(content) ? [`assistant ${content.map(blockSummary).join(" ")}`] : ["assistant"]
      }
      case "user": {
        const content = (event.message as { content?: unknown }).content
        const results = Array.isArray(content) ? content.filter((b) => (b as { type?: unknown }).type === "tool_result") : []
        return results.length > 0 ? [`user ${results.map(blockSummary).join(" ")}`] : []
      }
      case "result": {
        const r = event as Claude.TurnResult
        return [
          `result ${r.subtype} is_error=${r.is_error} terminal=${String(r.terminal_reason)} turns=${r.num_turns}` +
          (typeof r.result === "string" ? ` text=${r.result.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>")}` : "")
        ]
      }
      default:
        return []
    }
  })

const runTurn = (session: Claude.Session, input: Claude.TurnInput) =>
  session.turn(input).pipe(Stream.runCollect, Effect.map(summarize))

/** Collects the session's events (started now) until `results` results have been seen. */
const collectResults = (session: Claude.Session, results: number) =>
  Effect.gen(function*() {
    let seen = 0
    return yield* session.events.pipe(
      Stream.takeUntil((event) => event.type === "result" && ++seen >= results),
      Stream.runCollect,
      Effect.forkChild({ startImmediately: true })
    )
  })

const SLOW_COMMAND = "node -e \"setTimeout(() => console.log('done'), 30000)\""

/** A 1x1 transparent PNG. */
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

const echoServer = (alwaysLoad: boolean) =>
  McpServers.layer(McpServers.server("byre", {
    alwaysLoad,
    tools: [
      McpServers.tool({
        name: "echo",
        description: "Echo the given text back.",
        input: Schema.Struct({ text: Schema.String }),
        handler: ({ text }) => Effect.succeed(`echo: ${text}`)
      })
    ]
  }))

const mcpScenario = (name: string, alwaysLoad: boolean): Scenario => ({
  name,
  model: [FakeModel.toolUse("mcp__byre__echo", { text: "hi" }), FakeModel.text("The tool said hi.")],
  run: (h) =>
    Effect.gen(function*() {
      const session = yield* h.open().pipe(Effect.provide(echoServer(alwaysLoad)))
      return yield* runTurn(session, "Use the echo tool")
    })
})

/** Waits (polling, bounded by the test) until `predicate` holds for an event seen so far. */
const waitFor = (seen: ReadonlyArray<Claude.Event>, predicate: (event: Claude.Event) => boolean) =>
  Effect.gen(function*() {
    while (!seen.some(predicate)) yield* Effect.sleep("10 millis")
  })

export const scenarios: ReadonlyArray<Scenario> = [
  {
    name: "plain-text",
    model: [FakeModel.text("Hello from the fake model.", { chunks: 3 })],
    run: (h) => Effect.flatMap(h.open(), (session) => runTurn(session, "Say hello"))
  },
  {
    name: "bash-tool",
    model: [FakeModel.toolUse("Bash", { command: "echo hi", description: "say hi" }), FakeModel.text("It printed hi.")],
    run: (h) => Effect.flatMap(h.open(), (session) => runTurn(session, "Run echo hi"))
  },
  {
    name: "multi-block",
    model: [
      FakeModel.blocks([
        FakeModel.textBlock("Two commands:"),
        FakeModel.toolUseBlock("Bash", { command: "echo one", description: "one" }),
        FakeModel.toolUseBlock("Bash", { command: "echo two", description: "two" })
      ]),
      FakeModel.text("Both ran.")
    ],
    run: (h) => Effect.flatMap(h.open(), (session) => runTurn(session, "Run two commands"))
  },
  {
    name: "stop-hook",
    model: [FakeModel.text("Hello."), FakeModel.text("Goodbye.")],
    run: (h) =>
      Effect.gen(function*() {
        const calls: Array<boolean> = []
        const session = yield* h.open().pipe(Effect.provide(Hooks.layer(Hooks.on("Stop", (input) =>
          Effect.sync(() => {
            calls.push(input.stop_hook_active)
            return input.stop_hook_active ? Hooks.allow() : Hooks.block("Also say goodbye, please.")
          })))))
        const summary = yield* runTurn(session, "Say hello")
        return [...summary, `stop hook calls: ${calls.join(",")}`]
      })
  },
  mcpScenario("mcp-deferred", false),
  mcpScenario("mcp-always-load", true),
  {
    name: "interrupt-tool",
    model: [FakeModel.toolUse("Bash", { command: SLOW_COMMAND, description: "slow" }), FakeModel.text("after the interrupt")],
    run: (h) =>
      Effect.gen(function*() {
        const session = yield* h.open()
        const all = yield* collectResults(session, 2)
        const seen: Array<Claude.Event> = []
        const fiber = yield* session.turn("run the slow command").pipe(
          Stream.runForEach((e) => Effect.sync(() => seen.push(e))),
          Effect.forkChild
        )
        yield* waitFor(seen, (e) => e.type === "assistant")
        yield* Effect.sleep("300 millis")
        yield* Fiber.interrupt(fiber)
        yield* session.run("and now?")
        return summarize(yield* Fiber.join(all))
      })
  },
  {
    name: "interrupt-streaming",
    model: [FakeModel.text("word ".repeat(200), { chunks: 200, delayMs: 25 }), FakeModel.text("fine")],
    run: (h) =>
      Effect.gen(function*() {
        const session = yield* h.open()
        const all = yield* collectResults(session, 2)
        const seen: Array<Claude.Event> = []
        const fiber = yield* session.turn("talk a lot").pipe(
          Stream.runForEach((e) => Effect.sync(() => seen.push(e))),
          Effect.forkChild
        )
        yield* waitFor(seen, (e) => e.type === "system" && e.subtype === "init")
        // The model must be streaming when the interrupt lands (a slower CLI, 2.1.0, may not have
        // sent its request yet 500 ms after init). A replay has no stream_events: it goes on.
        yield* waitFor(seen, (e) => e.type === "stream_event").pipe(Effect.timeoutOption("3 seconds"))
        yield* Effect.sleep("500 millis")
        yield* Fiber.interrupt(fiber)
        yield* session.run("short now")
        // Whether the CLI writes a partial assistant line before the abort depends on timing: left out.
        return summarize(yield* Fiber.join(all)).filter((line) => !line.startsWith("assistant text:word"))
      })
  },
  {
    name: "set-model",
    model: [FakeModel.text("ok")],
    run: (h) =>
      Effect.gen(function*() {
        const session = yield* h.open()
        const resolved = yield* session.setModel("haiku")
        const summary = yield* runTurn(session, "which model?")
        return [`set_model → ${resolved}`, ...summary]
      })
  },
  {
    name: "resume-fork",
    model: [FakeModel.text("I will remember 42."), FakeModel.text("It was 42."), FakeModel.text("Forked: 42.")],
    run: (h) =>
      Effect.gen(function*() {
        const first = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* h.open()
          const summary = yield* runTurn(session, "Remember 42")
          return { summary, id: yield* session.sessionId }
        }))
        const resumed = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* h.open({ resume: first.id })
          const summary = yield* runTurn(session, "What was it?")
          return { summary, id: yield* session.sessionId }
        }))
        const forked = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* h.open({ resume: first.id, forkSession: true })
          const summary = yield* runTurn(session, "And in a fork?")
          return { summary, id: yield* session.sessionId }
        }))
        return [
          ...first.summary,
          ...resumed.summary,
          `resumed keeps the id: ${resumed.id === first.id}`,
          ...forked.summary,
          `fork has a new id: ${forked.id !== first.id}`
        ]
      })
  },
  {
    name: "image",
    model: [FakeModel.text("A single pixel.")],
    run: (h) =>
      Effect.flatMap(h.open(), (session) =>
        runTurn(session, { text: "What is in this image?", images: [{ mediaType: "image/png", data: PNG_1X1 }] }))
  },
  {
    name: "api-error",
    model: [FakeModel.httpError(500), FakeModel.httpError(500)],
    run: (h) => Effect.flatMap(h.open({ errorResults: "return" }), (session) => runTurn(session, "This will fail"))
  },
  {
    name: "queued-turns",
    model: [FakeModel.text("first answer ".repeat(20), { chunks: 20, delayMs: 25 }), FakeModel.text("queued answer")],
    run: (h) =>
      Effect.gen(function*() {
        const session = yield* h.open()
        const all = yield* collectResults(session, 2)
        const seen: Array<Claude.Event> = []
        const fiber = yield* session.turn("first").pipe(
          Stream.runForEach((e) => Effect.sync(() => seen.push(e))),
          Effect.forkChild
        )
        yield* waitFor(seen, (e) => e.type === "system" && e.subtype === "init")
        yield* session.send("second")
        yield* session.send("third")
        yield* Fiber.join(fiber)
        return summarize(yield* Fiber.join(all))
      })
  },
  {
    name: "eof-mid-turn",
    model: [FakeModel.text("still finishing ".repeat(10), { chunks: 10, delayMs: 30 })],
    run: (h) =>
      Effect.gen(function*() {
        const session = yield* h.open()
        const seen: Array<Claude.Event> = []
        const fiber = yield* session.turn("finish after EOF").pipe(
          Stream.runForEach((e) => Effect.sync(() => seen.push(e))),
          Effect.forkChild
        )
        yield* waitFor(seen, (e) => e.type === "system" && e.subtype === "init")
        yield* session.endInput
        yield* Fiber.join(fiber)
        const status = yield* session.exit
        return [...summarize(seen), `exit code ${status.code}`]
      })
  }
]

/**
 * A harness on the real CLI and a fake model with the scenario's script; records when `record` is
 * set (into testdata/transcripts/, or where `recordTo` says); `executable` runs another version of
 * the CLI than the pinned one.
 */
export const liveHarness = (
  scenario: Scenario,
  options?: {
    readonly record?: boolean
    readonly recordTo?: (name: string, index: number) => string
    readonly executable?: string
  }
) =>
  Effect.gen(function*() {
    const setup = yield* live(scenario.model, options?.executable === undefined ? {} : { executable: options.executable })
    let opened = 0
    const harness: Harness = {
      open: (extra = {}) =>
        Effect.gen(function*() {
          const index = opened++
          const transcript = options?.record === true
            ? yield* Transcript.toFile((options.recordTo ?? transcriptPath)(scenario.name, index))
            : undefined
          return yield* Claude.open({ ...setup.options, ...extra, ...(transcript === undefined ? {} : { transcript }) }).pipe(
            Effect.provide(processLayer)
          )
        })
    }
    return harness
  })

/** A harness that replays the recorded sessions of the scenario, in order. */
export const replayHarness = (scenario: Scenario): Harness => {
  let opened = 0
  return {
    open: (extra = {}) =>
      Effect.suspend(() => Claude.open(extra).pipe(Effect.provide(Replay.layer(transcriptPath(scenario.name, opened++)))))
  }
}
