/**
 * Structured output on CLI 2.1.0: when the model answers in text, 2.1.0 asks it again without
 * end (288 model requests in 15 s here, each one paid for against a real API), where 2.1.200 and
 * 2.1.332 ask once more and end the turn (`StructuredOutputMissing`). A session with
 * `outputFormat` (or `jsonSchema`) gets no turn on a CLI older than 2.1.200: `InvalidInput`,
 * before any request (found by the review of turn outcomes).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { installOnce } from "./support/cliVersions.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

const textOnly: FakeModel.Script = () => FakeModel.text("just text")
const outputFormat = Schema.Struct({ n: Schema.Number })

describe("structured output on CLIs that retry without end (real CLI)", { timeout: 120_000 }, () => {
  it.live("CLI 2.1.0: the turn is refused (InvalidInput naming the version), no model request made", () =>
    Effect.scoped(Effect.gen(function*() {
      const { executable } = yield* installOnce("2.1.0")
      const offline = yield* Offline.open(textOnly, { executable, outputFormat, turnTimeout: "20 seconds" })
      const error = yield* Effect.flip(offline.session.run("give n"))
      assert.strictEqual(error.reason._tag, "InvalidInput", String(error))
      assert.include(error.message, "2.1.200")
      const asked = (yield* offline.model.messageRequests).filter((request) => JSON.stringify(request.messages).includes("give n"))
      assert.lengthOf(asked, 0)
    })).pipe(Effect.provide(processLayer)))

  for (const version of ["2.1.200", "pinned"] as const) {
    it.live(`CLI ${version}: the model asked once more, then StructuredOutputMissing`, () =>
      Effect.scoped(Effect.gen(function*() {
        const executable = version === "pinned" ? cliPath : (yield* installOnce(version)).executable
        const offline = yield* Offline.open(textOnly, { executable, outputFormat, turnTimeout: "20 seconds" })
        const error = yield* Effect.flip(offline.session.run("give n"))
        assert.strictEqual(error.reason._tag, "StructuredOutputMissing", String(error))
        assert.isAtMost((yield* offline.model.messageRequests).length, 3)
      })).pipe(Effect.provide(processLayer)))
  }
})
