/**
 * The CLI's control requests as `src/internal/incoming.ts` runs them: one fiber per request id
 * (a duplicate id while the first runs is not run twice), a finished handler's id free again, a
 * `control_cancel_request` interrupting the handler that runs under that id now, the session's
 * context in every handler, and the scope's close interrupting the handlers still running and
 * waiting for their finalizers; nothing runs once it closed.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as ClaudeError from "../src/ClaudeError.ts"
import type * as Protocol from "../src/Protocol.ts"
import * as Incoming from "../src/internal/incoming.ts"

class Where extends Context.Service<Where, string>()("test/Incoming/Where") {}

const settle = Effect.gen(function*() {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow
})

describe("Incoming", () => {
  it.effect("one fiber per request id; cancel interrupts the one running; close interrupts and awaits the rest; nothing after close", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const sent: Array<Protocol.StdinMessage> = []
      const scope = yield* Scope.make()
      let calls = 0
      const incoming = yield* Incoming.make({
        session: {},
        stopWithin: Duration.seconds(5),
        handlers: {
          work: (request, requestId) =>
            Effect.gen(function*() {
              calls++
              const where = yield* Effect.serviceOption(Where)
              log.push(`start ${requestId} in ${where._tag === "Some" ? where.value : "no context"}`)
              if (request.quick === true) return { done: requestId }
              return yield* Effect.never
            }).pipe(Effect.onInterrupt(() => Effect.andThen(settle, Effect.sync(() => log.push(`cleaned ${requestId}`)))))
        },
        send: (message) => Effect.sync(() => void sent.push(message))
      }).pipe(Scope.provide(scope), Effect.provideService(Where, "the session"))
      const answered = () => sent.map((message) => JSON.stringify(message))

      // A second request under the id of one that runs is not run.
      incoming.dispatch("a", { subtype: "work" }, undefined)
      incoming.dispatch("a", { subtype: "work" }, undefined)
      yield* settle
      assert.strictEqual(calls, 1)
      assert.deepStrictEqual(log, ["start a in the session"])

      // A finished handler frees its id; cancel interrupts the newer handler under it, unanswered.
      incoming.dispatch("b", { subtype: "work", quick: true }, undefined)
      yield* settle
      assert.strictEqual(sent.length, 1)
      assert.include(answered()[0]!, "\"request_id\":\"b\"")
      incoming.dispatch("b", { subtype: "work" }, undefined)
      yield* settle
      assert.strictEqual(calls, 3)
      incoming.cancel("b")
      yield* settle
      assert.include(log, "cleaned b")
      assert.notInclude(log, "cleaned a")
      assert.strictEqual(sent.length, 1)

      // Closing interrupts "a" and waits for its finalizer (which yields before it logs).
      yield* Scope.close(scope, Exit.void)
      assert.include(log, "cleaned a")
      incoming.dispatch("c", { subtype: "work" }, undefined)
      yield* settle
      assert.strictEqual(calls, 3)
      assert.strictEqual(sent.length, 1)
    }))
  it.effect("an answer the session cannot write still gets the CLI one answer: an error naming why", () =>
    Effect.gen(function*() {
      const sent: Array<Protocol.StdinMessage> = []
      const scope = yield* Scope.make()
      const incoming = yield* Incoming.make({
        session: {},
        stopWithin: Duration.seconds(5),
        handlers: { odd: () => Effect.succeed({ count: 1n }) },
        // As the session's write: a line JSON cannot write is InvalidInput, and is not sent.
        send: (message) =>
          Effect.suspend(() => {
            try {
              JSON.stringify(message)
            } catch (error) {
              return Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({ description: `cannot be written: ${String(error)}` })))
            }
            sent.push(message)
            return Effect.void
          })
      }).pipe(Scope.provide(scope))
      incoming.dispatch("c", { subtype: "odd" }, undefined)
      yield* settle
      assert.strictEqual(sent.length, 1)
      const response = (sent[0] as { readonly response: { readonly subtype: string; readonly request_id: string; readonly error?: string } }).response
      assert.strictEqual(response.subtype, "error")
      assert.strictEqual(response.request_id, "c")
      assert.include(response.error, "cannot be written")
      yield* Scope.close(scope, Exit.void)
    }))
})
