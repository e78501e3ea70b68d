/**
 * Structured output beyond `run`, against FakeCli: the result on the stream of `session.turn` and
 * of `Claude.queryStream` carries `structured`, typed by the `outputFormat`; a value the Schema
 * refuses fails the stream as `run` fails; `ClaudeSession.layer(options, key)` provides a session
 * service whose `run` keeps the Schema's type.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as ClaudeSession from "../src/ClaudeSession.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

const Review = Schema.Struct({
  verdict: Schema.Literals(["ok", "changes"]),
  score: Schema.Int
})

/** A fake CLI whose turns stream a text and end with a result carrying `value` as `structured_output`. */
const cliAnswering = (value: unknown) =>
  FakeCli.layer(FakeCli.conversation({
    sessionId: SESSION,
    onUser: (_text, index, cli, message) => {
      const lines = FakeCli.textTurn({
        sessionId: SESSION,
        text: "Here it is.",
        totalCostUsd: 0.001 * (index + 1),
        userMessageUuid: String(message.uuid)
      })
      const result = { ...lines.at(-1)!, structured_output: value }
      return Effect.forEach([...lines.slice(0, -1), result], cli.emit, { discard: true })
    }
  }))

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) return assert.fail("expected a failure")
  const error = exit.cause.reasons.find(Cause.isFailReason)?.error
  if (!ClaudeError.isClaudeError(error)) return assert.fail(`expected a ClaudeError, got ${Cause.pretty(exit.cause)}`)
  return error.reason
}

class Reviewer extends Context.Service<Reviewer, Claude.Session<Claude.StructuredResult<typeof Review.Type>>>()(
  "test/Reviewer"
) {}

describe("structured output on streams", () => {
  it.effect("session.turn: the result on the stream carries structured, typed by the Schema", () =>
    Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open({ outputFormat: Review })
      const events = Array.from(yield* Stream.runCollect(session.turn("Review it")))
      const last = events.at(-1)
      if (last?.type !== "result") return assert.fail("the stream does not end with the result")
      // Typed: `structured` is the Schema's Type.
      const verdict: "ok" | "changes" = last.structured.verdict
      assert.strictEqual(verdict, "changes")
      assert.strictEqual(last.structured.score, 3)
      assert.isTrue(events.some((e) => e.type === "assistant"))
    })).pipe(Effect.provide(cliAnswering({ verdict: "changes", score: 3 }))))

  it.effect("session.turn: a value the Schema refuses fails the stream with StructuredOutputInvalid carrying it", () =>
    Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open({ outputFormat: Review })
      const exit = yield* Effect.exit(Stream.runCollect(session.turn("Review it")))
      const reason = reasonOf(exit)
      assert.strictEqual(reason._tag, "StructuredOutputInvalid")
      if (reason._tag === "StructuredOutputInvalid") assert.deepStrictEqual(reason.value, { verdict: "maybe", score: 3 })
      // The session goes on.
      const again = yield* Effect.exit(session.run("Again"))
      assert.strictEqual(reasonOf(again)._tag, "StructuredOutputInvalid")
    })).pipe(Effect.provide(cliAnswering({ verdict: "maybe", score: 3 }))))

  it.effect("session.turn: a refused value read in one chunk with the turn's other lines: those events first, then the failure", () =>
    Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open({ outputFormat: Review })
      const seen: Array<string> = []
      const exit = yield* Effect.exit(Stream.runForEach(session.turn("Review it"), (event) => Effect.sync(() => seen.push(event.type))))
      assert.strictEqual(reasonOf(exit)._tag, "StructuredOutputInvalid")
      // Everything before the result, in order; not the refused result.
      const before = FakeCli.textTurn({ sessionId: SESSION, text: "Here it is." }).slice(0, -1).map((line) => String(line.type))
      assert.isAbove(before.length, 2)
      assert.deepStrictEqual(seen, before)
    })).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      sessionId: SESSION,
      onUser: (_text, _index, cli, message) => {
        const lines = FakeCli.textTurn({ sessionId: SESSION, text: "Here it is.", userMessageUuid: String(message.uuid) })
        const result = { ...lines.at(-1)!, structured_output: { verdict: "maybe", score: 3 } }
        // One chunk: the reader hands the turn one batch with the result last.
        return cli.emitRaw([...lines.slice(0, -1), result].map((line) => JSON.stringify(line) + "\n").join(""))
      }
    })))))

  it.effect("without an outputFormat the turn's result has no structured", () =>
    Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open()
      const events = Array.from(yield* Stream.runCollect(session.turn("Review it")))
      const last = events.at(-1)
      assert.strictEqual(last?.type, "result")
      assert.isFalse(last !== undefined && "structured" in last)
    })).pipe(Effect.provide(cliAnswering({ verdict: "ok", score: 1 }))))

  it.effect("Claude.queryStream: the result carries structured, typed by the Schema", () =>
    Effect.gen(function*() {
      const events = Array.from(yield* Stream.runCollect(Claude.queryStream("Review it", { outputFormat: Review })))
      const last = events.at(-1)
      if (last?.type !== "result") return assert.fail("the stream does not end with the result")
      assert.deepStrictEqual(last.structured, { verdict: "ok", score: 5 })
    }).pipe(Effect.provide(cliAnswering({ verdict: "ok", score: 5 }))))

  it.effect("Claude.queryStream: a value the Schema refuses fails the stream", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Stream.runCollect(Claude.queryStream("Review it", { outputFormat: Review })))
      assert.strictEqual(reasonOf(exit)._tag, "StructuredOutputInvalid")
    }).pipe(Effect.provide(cliAnswering({ verdict: "ok", score: 1.5 }))))

  it.effect("ClaudeSession.layer(options, key): the service's run is typed by the Schema", () =>
    Effect.gen(function*() {
      const reviewer = yield* Reviewer
      const result = yield* reviewer.run("Review it")
      const score: number = result.structured.score
      assert.strictEqual(score, 4)
    }).pipe(
      Effect.provide(ClaudeSession.layer({ outputFormat: Review }, Reviewer)),
      Effect.provide(cliAnswering({ verdict: "ok", score: 4 }))
    ))

  it("ClaudeSession.layer(options, key): a key typed for another Schema does not compile", () => {
    const Other = Schema.Struct({ name: Schema.String })
    // @ts-expect-error: Reviewer's session returns a Review, not an Other.
    const layer = ClaudeSession.layer({ outputFormat: Other }, Reviewer)
    assert.isDefined(layer)
  })

  it.effect("ClaudeSession.layer(options): the ClaudeSession service, structured there at run time", () =>
    Effect.gen(function*() {
      const session = yield* ClaudeSession.ClaudeSession
      const result = yield* session.run("Review it")
      assert.deepStrictEqual((result as Claude.StructuredResult<unknown>).structured, { verdict: "ok", score: 2 })
    }).pipe(
      Effect.provide(ClaudeSession.layer({ outputFormat: Review })),
      Effect.provide(cliAnswering({ verdict: "ok", score: 2 }))
    ))
})
