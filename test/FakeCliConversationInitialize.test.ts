/**
 * `FakeCli.conversation` (and so `FakeCli.replying`, the shortest fake) answered `initialize` with
 * `{ commands: [], models: [] }`, which the session's own schema refuses: a program that reads
 * `session.initializeResult` failed with `ProtocolViolation` under the fake, never under the CLI.
 * It now answers as `answerInitialize` does (`FakeCli.initializeResponse`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const initializeResult = Effect.scoped(Effect.flatMap(Claude.open(), (session) => session.initializeResult))

describe("FakeCli.conversation answers initialize as the CLI does", () => {
  it.effect("FakeCli.replying: the session's initializeResult decodes", () =>
    Effect.gen(function*() {
      const result = yield* initializeResult.pipe(Effect.provide(FakeCli.replying(() => "hi")))
      assert.deepStrictEqual(result.commands, [])
      assert.strictEqual(result.claude_code_version, FakeCli.initializeResponse.claude_code_version)
    }))

  it.effect("FakeCli.conversation with its own onControl: the same answer to initialize", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer(FakeCli.conversation({ onControl: (request, cli) => cli.emit(FakeCli.success(request)) }))
      const result = yield* initializeResult.pipe(Effect.provide(layer))
      assert.strictEqual(result.output_style, "default")
    }))
})
