/**
 * The demo's prompt loop (`converse` in examples/main.ts) on a fake CLI that behaves as 2.1.332
 * does: a prompt interrupted with Ctrl-C while the CLI still holds it queued is withdrawn
 * (`cancel_async_message`, a `command_lifecycle` `cancelled` line) and gets no result. The demo
 * said so at once and went on, rather than waiting 5 seconds for a result that never comes and
 * then counting the next one as its own. The clock here is the test clock: a wait on it never
 * ends, so the test fails (times out) where the demo waited. A live test by its imports: the
 * demo module loads the real CLI's wiring (it starts no process here).
 *
 * CLI 2.1.332 also writes a `cancelled` lifecycle for a prompt interrupted while it ran, after its
 * aborted result: the demo printed "withdrawn before it started" for it too (found by a newcomer's
 * run of `DEMO_SLOW=1 npm start` and Ctrl-C). And a prompt interrupted before it was written (the
 * session still starting its in-process MCP server) gets no ending at all: the demo waited 5 s,
 * then went on without a word about it (found by a second review, on the real CLI).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Schema from "effect/Schema"
import { converse } from "../examples/main.ts"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { abortedResult, answerInterrupt } from "./support/interrupts.ts"
import { live, processLayer } from "./support/live.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

type Line = Record<string, unknown>

const lifecycle = (commandUuid: string, state: "queued" | "started" | "completed" | "cancelled"): Line => ({
  type: "command_lifecycle",
  command_uuid: commandUuid,
  state,
  uuid: `lifecycle-${commandUuid}-${state}`,
  session_id: SESSION
})

/** What the demo prints meanwhile, caught instead of reaching the test's stdout. */
const capturedStdout = Effect.acquireRelease(
  Effect.sync(() => {
    const write = process.stdout.write
    const chunks: Array<string> = []
    process.stdout.write = ((chunk: string | Uint8Array) => {
      chunks.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"))
      return true
    }) as typeof process.stdout.write
    return { write, chunks }
  }),
  ({ write }) => Effect.sync(() => (process.stdout.write = write))
).pipe(Effect.map(({ chunks }) => () => chunks.join("")))

describe("the demo's prompts", () => {
  it.effect("a prompt withdrawn before it started is shown as such at once, and the next prompt gets its own result", () =>
    Effect.gen(function*() {
      const queued = yield* Deferred.make<void>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const first = String((yield* cli.nextMatching((m) => m.type === "user")).uuid)
          yield* cli.emit(lifecycle(first, "queued"))
          yield* Deferred.succeed(queued, undefined)
          const request = yield* cli.nextMatching((m) => m.type === "control_request")
          const body = request.request as Line
          assert.deepStrictEqual([body.subtype, body.message_uuid], ["cancel_async_message", first])
          yield* cli.emit(lifecycle(first, "cancelled"))
          yield* cli.emit(FakeCli.success(request, { cancelled: true, message_uuid: first }))
          const second = String((yield* cli.nextMatching((m) => m.type === "user")).uuid)
          yield* cli.emit(lifecycle(second, "started"))
          for (const line of FakeCli.textTurn({ sessionId: SESSION, text: "reply to two", userMessageUuid: second })) {
            yield* cli.emit(line)
          }
          yield* cli.emit(lifecycle(second, "completed"))
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const output = yield* capturedStdout
        const session = yield* Claude.open({ interruptTimeout: "1 hour" })
        const fiber = yield* Effect.forkChild(converse(session, ["one", "two"]))
        yield* Deferred.await(queued)
        // Ctrl-C, as the terminal delivers it, while the first prompt waits on the CLI.
        process.emit("SIGINT", "SIGINT")
        const finished = yield* Fiber.join(fiber)
        assert.deepStrictEqual(finished.map((result) => result.result), ["reply to two"])
        assert.match(output(), /› one\n.*\^C interrupting the turn.*\n✗ withdrawn before it started\n\n› two\n/s)
        assert.notInclude(output(), "✗ interrupted")
      }).pipe(Effect.scoped, Effect.provide(layer))
    }))

  it.effect("a prompt interrupted while it ran is shown interrupted, not withdrawn, though the CLI then says cancelled", () =>
    Effect.gen(function*() {
      const running = yield* Deferred.make<void>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const first = String((yield* cli.nextMatching((m) => m.type === "user")).uuid)
          const [init, start] = FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: first })
          yield* cli.emit(lifecycle(first, "started"))
          yield* cli.emit(init)
          yield* cli.emit(start)
          yield* Deferred.succeed(running, undefined)
          yield* answerInterrupt(cli)
          yield* cli.emit(abortedResult(SESSION, first))
          // As CLI 2.1.332 does, after the aborted result.
          yield* cli.emit(lifecycle(first, "cancelled"))
          const second = String((yield* cli.nextMatching((m) => m.type === "user")).uuid)
          for (const line of FakeCli.textTurn({ sessionId: SESSION, text: "reply to two", userMessageUuid: second })) {
            yield* cli.emit(line)
          }
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const output = yield* capturedStdout
        const session = yield* Claude.open({ interruptTimeout: "1 hour" })
        const fiber = yield* Effect.forkChild(converse(session, ["one", "two"]))
        yield* Deferred.await(running)
        process.emit("SIGINT", "SIGINT")
        const finished = yield* Fiber.join(fiber)
        assert.deepStrictEqual(finished.map((result) => result.result), [undefined, "reply to two"])
        assert.include(output(), "✗ interrupted")
        assert.notInclude(output(), "withdrawn")
      }).pipe(Effect.scoped, Effect.provide(layer))
    }))

  // What the demo gives its session (examples/main.ts agentLayer): the in-process MCP server's
  // start-up holds the first prompt back.
  const agent = Layer.mergeAll(
    Hooks.layer(Hooks.on("Stop", () => Effect.succeed(Hooks.allow()))),
    Permissions.layer(() => Effect.succeed(Permissions.allow())),
    McpServers.layer(McpServers.server("demo", {
      tools: [McpServers.tool({
        name: "add",
        description: "Adds two numbers.",
        input: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
        handler: ({ a, b }) => Effect.succeed(`${a + b}`)
      })],
      alwaysLoad: true
    }))
  )

  it.live("a prompt interrupted before it was written is shown as such at once (real CLI, the demo's layers)", () =>
    Effect.gen(function*() {
      const stream = { chunks: 12, delayMs: 25 }
      const { options } = yield* live([FakeModel.text("Hello!", stream), FakeModel.text("reply to two", stream)], {
        permissionMode: "default"
      })
      const output = yield* capturedStdout
      const session = yield* Claude.open(options).pipe(Effect.provide(agent))
      const fiber = yield* Effect.forkChild(converse(session, ["one", "two"]))
      while (!output().includes("› one")) yield* Effect.sleep("1 millis")
      const sigintAt = Date.now()
      process.emit("SIGINT", "SIGINT")
      const finished = yield* Fiber.join(fiber)
      const elapsed = Date.now() - sigintAt
      assert.match(output(), /› one\n.*\^C interrupting the turn.*\n(✗ withdrawn before it (started|was sent)|✗ interrupted)/s)
      // The second prompt ran to its end.
      assert.strictEqual(finished.length, 1)
      // No 5 s wait for an ending that never comes (the second prompt's turn takes well under 2 s).
      assert.isBelow(elapsed, 4000)
    }).pipe(Effect.scoped, Effect.provide(processLayer), Effect.provide(Logger.layer([]))), { timeout: 60_000 })
})
