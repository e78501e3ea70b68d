/**
 * A failed turn never reads as a success in traces and metrics either (found by a reviewing
 * helper; each failed before its fix):
 * - the span the library opens for a turn it did not start (`send`, automatic turns) ended
 *   successful on an API-error result;
 * - with `errorResults: "return"`, a failed turn's span ended successful, with `error.type` the
 *   result's subtype, which CLI 2.1.332 writes as `success` for an API error;
 * - `claude.turn.duration` counted an API-error turn in the series of successful ones (subtype
 *   `success`): a failed turn's series has `error.type`, the library's reason.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { collectSpans, metricSnapshots, named, only } from "./support/spans.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

/** A result as CLI 2.1.332 writes an API error: subtype `success`, `is_error`. */
const apiError = (uuid: unknown) => ({
  ...FakeCli.result({ sessionId: SESSION }),
  is_error: true,
  terminal_reason: "api_error",
  api_error_status: 500,
  api_error_type: "api_error",
  result: "API Error: 500 Internal server error",
  user_message_uuid: uuid,
  user_message_uuids: [uuid]
})

const ended = (span: Tracer.NativeSpan) => span.status._tag === "Ended" ? span.status.exit._tag : "open"

describe("a failed turn in traces and metrics", () => {
  it.live("a send turn's own claude.turn span ends failed on an API-error result, with the library's reason", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ closeGrace: "1 second" })
        const results = yield* session.events.pipe(
          Stream.filter((event) => event.type === "result"),
          Stream.take(1),
          Stream.runDrain,
          Effect.forkScoped({ startImmediately: true })
        )
        yield* session.send("go")
        yield* Fiber.join(results)
      }).pipe(
        Effect.scoped,
        Effect.provide(FakeCli.layer(FakeCli.conversation({
          sessionId: SESSION,
          onUser: (_text, _index, cli, message) =>
            Effect.gen(function*() {
              const lines = FakeCli.textTurn({ sessionId: SESSION, text: "partial", userMessageUuid: String(message.uuid) })
              for (const line of lines.slice(0, -1)) yield* cli.emit(line)
              yield* cli.emit(apiError(message.uuid))
            })
        }))),
        collected.provide,
        Effect.provide(Logger.layer([]))
      )
      const turn = only(collected.spans, "claude.turn")
      assert.deepStrictEqual(
        { status: ended(turn), reason: turn.attributes.get("claude.error.reason"), type: turn.attributes.get("error.type") },
        { status: "Failure", reason: "ApiError", type: "ApiError" }
      )
    }))

  it.live("with errorResults: \"return\", the span of a run that returned a failed result ends failed, error.type the reason", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const result = yield* Effect.gen(function*() {
        const session = yield* Claude.open({ closeGrace: "1 second", errorResults: "return" })
        return yield* session.run("go")
      }).pipe(
        Effect.scoped,
        Effect.provide(FakeCli.layer(FakeCli.conversation({
          sessionId: SESSION,
          onUser: (_text, _index, cli, message) => cli.emit(apiError(message.uuid))
        }))),
        collected.provide,
        Effect.provide(Logger.layer([]))
      )
      assert.isTrue(result.is_error)
      const turn = only(collected.spans, "claude.turn")
      assert.deepStrictEqual(
        { status: ended(turn), reason: turn.attributes.get("claude.error.reason"), type: turn.attributes.get("error.type") },
        { status: "Failure", reason: "ApiError", type: "ApiError" }
      )
    }))

  it.effect("claude.turn.duration keeps an API-error turn apart from a successful one (error.type)", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const series = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.run("one")
        assert.strictEqual((yield* Effect.exit(session.run("two")))._tag, "Failure")
        return yield* metricSnapshots("claude.turn.duration")
      }).pipe(
        Effect.scoped,
        Effect.provide(FakeCli.layer(FakeCli.conversation({
          sessionId: SESSION,
          onUser: (_text, index, cli, message) =>
            cli.emit(
              index === 1
                ? apiError(message.uuid)
                : { ...FakeCli.result({ sessionId: SESSION, text: "fine" }), user_message_uuid: message.uuid, user_message_uuids: [message.uuid] }
            )
        }))),
        collected.provide,
        Effect.provide(Logger.layer([]))
      )
      assert.deepStrictEqual(named(collected.spans, "claude.turn").map(ended), ["Success", "Failure"])
      const counts = series.map((s) => ({ attributes: s.attributes, count: (s.state as { readonly count: number }).count }))
      assert.deepStrictEqual(
        counts.map((c) => [c.attributes?.["claude.result.subtype"], c.attributes?.["error.type"], c.count]),
        [["success", undefined, 1], ["success", "ApiError", 1]]
      )
    }))
})
