/**
 * Lines that CLIs inside the supported range write and 2.1.332 does not (issue 22), from
 * `testdata/cli-versions/fixtures.ndjson` (each line says where it came from): each decodes as
 * itself, and a session handles it as README's compatibility section says.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import * as Protocol from "../src/Protocol.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { capturedRequest } from "./support/protocolTranscripts.ts"

type Json = Record<string, unknown>

const fixtures: ReadonlyMap<string, { readonly source: string; readonly msg: Json }> = new Map(
  Fs.readFileSync(new URL("../testdata/cli-versions/fixtures.ndjson", import.meta.url), "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as { readonly name: string; readonly source: string; readonly msg: Json })
    .map(({ msg, name, source }) => [name, { source, msg }] as const)
)

/** A fresh copy of a fixture's message. */
const fixture = (name: string): Json => {
  const found = fixtures.get(name)
  if (found === undefined) throw new Error(`no fixture ${name}`)
  return structuredClone(found.msg)
}

const SESSION = "f6769afd-6744-4bd6-9ec7-b6b7d6e0965e"

describe("lines of older supported CLIs", () => {
  it("each fixture says where it came from, and decodes as itself (and with the full Message union)", () => {
    assert.deepStrictEqual([...fixtures.keys()].sort(), [
      "hook_callback-tool_use_id-null",
      "result-without-stop_reason",
      "task_updated-without-ids"
    ])
    for (const [name, { msg, source }] of fixtures) {
      assert.match(source, /^(recorded|constructed): /, name)
      const decoded = Protocol.decodeMessage(msg)
      assert.isTrue(Result.isSuccess(decoded), `${name}: ${Result.isFailure(decoded) ? decoded.failure : ""}`)
      if (Result.isSuccess(decoded)) {
        assert.strictEqual(decoded.success, msg, name)
        assert.notStrictEqual(decoded.success.type, "unknown", name)
      }
      assert.isTrue(Result.isSuccess(Schema.decodeUnknownResult(Protocol.Message)(msg)), name)
    }
    assert.notProperty(fixture("result-without-stop_reason"), "stop_reason")
    assert.notProperty(fixture("task_updated-without-ids"), "uuid")
    assert.notProperty(fixture("task_updated-without-ids"), "session_id")
    assert.isNull((fixture("hook_callback-tool_use_id-null").request as Json).tool_use_id)
  })

  it("the interrupt answer of CLI 2.1.0 has no still_queued (the CLI versions run showed a ProtocolViolation): it decodes; a wrong type still fails", () => {
    assert.deepStrictEqual(Schema.decodeUnknownSync(Protocol.InterruptResponse)({}), {})
    assert.deepStrictEqual(Schema.decodeUnknownSync(Protocol.InterruptResponse)({ still_queued: ["u-1"] }), { still_queued: ["u-1"] })
    assert.isTrue(Result.isFailure(Schema.decodeUnknownResult(Protocol.InterruptResponse)({ still_queued: "u-1" })))
  })

  it("the fields stay strict where they are present: a wrong type still fails", () => {
    const result = { ...fixture("result-without-stop_reason"), stop_reason: 3 }
    assert.isTrue(Result.isFailure(Protocol.decodeMessage(result)))
    const update = { ...fixture("task_updated-without-ids"), uuid: 3 }
    assert.isTrue(Result.isFailure(Protocol.decodeMessage(update)))
    const hook = fixture("hook_callback-tool_use_id-null")
    ;(hook.request as Json).tool_use_id = 3
    assert.isTrue(Result.isFailure(Protocol.decodeMessage(hook)))
  })

  it.effect("a result without stop_reason ends its turn as any result does; stop_reason is absent on it", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (_text, _index, cli) =>
          Effect.gen(function*() {
            const [init] = FakeCli.textTurn({ sessionId: SESSION, text: "unused" })
            yield* cli.emit(init)
            yield* cli.emit(fixture("result-without-stop_reason"))
          })
      }))
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const events = yield* session.turn("Say hello").pipe(Stream.runCollect)
        assert.deepStrictEqual(events.filter((e) => e.type === "protocol_problem"), [])
        const result = events.at(-1) as Claude.TurnResult
        assert.strictEqual(result.type, "result")
        assert.strictEqual(result.result, "Hello from the fake model.")
        assert.isUndefined(result.stop_reason)
        assert.isFalse(result.is_error)
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a task_updated without uuid and session_id reaches session.events as system/task_updated", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (text, _index, cli) =>
          Effect.gen(function*() {
            const lines = FakeCli.textTurn({ sessionId: SESSION, text })
            yield* cli.emit(lines[0])
            yield* cli.emit(fixture("task_updated-without-ids"))
            for (const line of lines.slice(1)) yield* cli.emit(line)
          })
      }))
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const events = yield* session.events.pipe(
          Stream.takeUntil((e) => e.type === "result"),
          Stream.runCollect,
          Effect.forkChild({ startImmediately: true })
        )
        yield* session.run("go")
        const seen = yield* Fiber.join(events)
        assert.deepStrictEqual(seen.filter((e) => e.type === "protocol_problem"), [])
        const update = seen.find((e) => e.type === "system" && e.subtype === "task_updated")
        assert.isDefined(update)
        if (update?.type === "system" && update.subtype === "task_updated") {
          assert.strictEqual(update.task_id, "bfivitfzi")
          assert.strictEqual(update.patch.status, "completed")
          assert.isUndefined(update.uuid)
          assert.isUndefined(update.session_id)
        }
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a hook_callback with tool_use_id null runs the hook (toolUseId undefined) and is answered", () =>
    Effect.gen(function*() {
      const hookRequest = fixture("hook_callback-tool_use_id-null")
      const answer = yield* Deferred.make<Json>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.emit(hookRequest)
          const response = yield* cli.nextMatching((m) =>
            m.type === "control_response" && (m.response as Json).request_id === hookRequest.request_id
          )
          yield* Deferred.succeed(answer, response.response as Json)
          return yield* Effect.never
        })
      )
      const metas: Array<{ readonly toolUseId: string | undefined; readonly callbackId: string }> = []
      yield* Effect.gen(function*() {
        yield* Claude.open()
        const response = yield* Deferred.await(answer)
        assert.strictEqual(response.subtype, "success")
        assert.deepStrictEqual(response.response, { decision: "block", reason: "keep going" })
        assert.deepStrictEqual(metas, [{ toolUseId: undefined, callbackId: "hook_0" }])
      }).pipe(
        Effect.provide(layer),
        Effect.provide(Hooks.layer(Hooks.on("Stop", (_input, meta) =>
          Effect.sync(() => {
            metas.push({ toolUseId: meta.toolUseId, callbackId: meta.callbackId })
            return Hooks.block("keep going")
          }))))
      )
    }))
})

describe("a control request that does not decode still gets an answer", () => {
  const canUseTool = () => ({
    type: "control_request",
    request_id: "0f9c4b2e-7f43-4d3b-9a57-6d1f3c0b2a11",
    request: capturedRequest("j2-permission-prompt-stdio", "can_use_tool")
  })

  it("a can_use_tool without tool_use_id (as a later CLI might send): an error answer naming the request", () => {
    const line = canUseTool()
    delete (line.request as Json).tool_use_id
    const decoded = Protocol.decodeMessage(line)
    assert.isTrue(Result.isFailure(decoded))
    const answer = Protocol.undecodableRequestAnswer(line, Result.isFailure(decoded) ? decoded.failure : "")
    assert.isDefined(answer)
    assert.strictEqual(answer!.response.subtype, "error")
    assert.strictEqual(answer!.response.request_id, line.request_id)
    assert.include((answer!.response as { error: string }).error, "can_use_tool")
    assert.include((answer!.response as { error: string }).error, "tool_use_id")
    // What the host writes is itself a valid stdin line.
    assert.isTrue(Result.isSuccess(Protocol.decodeStdin(JSON.parse(JSON.stringify(answer)))))
  })

  it("nothing to answer without a string request_id, or for a line that is not a control_request", () => {
    const numeric = { ...canUseTool(), request_id: 7 }
    assert.isUndefined(Protocol.undecodableRequestAnswer(numeric, "x"))
    assert.isUndefined(Protocol.undecodableRequestAnswer({ type: "result" }, "x"))
    assert.isUndefined(Protocol.undecodableRequestAnswer(null, "x"))
    const noBody = { type: "control_request", request_id: "r1" }
    assert.include((Protocol.undecodableRequestAnswer(noBody, "no request")!.response as { error: string }).error, "control request")
  })
})
