/**
 * A system prompt of 200 KB (a long instructions document) reaches the model, as it does with the
 * official SDK, which sends `systemPrompt` and `appendSystemPrompt` in `initialize`. The library
 * put them on the command line, where Linux refuses one argument over 128 KiB (`MAX_ARG_STRLEN`):
 * the spawn failed with E2BIG, an error that named no option (found by a reviewing helper;
 * failing before). They go in `initialize` now (CLI 2.1.0 reads them there too), which also keeps
 * them out of the process list. What each form gives the model is checked here as well.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

const longText = (marker: string) => `${marker} ` + "Rule: be precise. ".repeat(12_000) // ~216 KB

const systemOfFirstRequest = (options: Offline.Options) =>
  Effect.gen(function*() {
    const offline = yield* Offline.open([FakeModel.text("ok")], { executable: cliPath, ...options })
    yield* offline.session.run("hi")
    const [request] = yield* offline.model.messageRequests
    return FakeModel.systemText(request!)
  })

describe("system prompts reach the model (real CLI)", { timeout: 90_000 }, () => {
  it.live("systemPrompt of ~216 KB: the model's system prompt holds it", () =>
    Effect.scoped(Effect.gen(function*() {
      const system = yield* systemOfFirstRequest({ systemPrompt: longText("Long prompt marker 5e1.") })
      assert.include(system, "Long prompt marker 5e1.")
      assert.isAbove(system.length, 200_000)
    })).pipe(Effect.provide(processLayer)))

  it.live("preset append of ~216 KB: the CLI's own prompt, then the text", () =>
    Effect.scoped(Effect.gen(function*() {
      const system = yield* systemOfFirstRequest({
        systemPrompt: { type: "preset", preset: "claude_code", append: longText("Long append marker 7c2.") }
      })
      assert.include(system, "Long append marker 7c2.")
      assert.include(system, "You are an agent working with the user")
    })).pipe(Effect.provide(processLayer)))

  it.live("appendSystemPrompt: the CLI's own prompt, then the text; systemPrompt \"\": the CLI's one-line SDK prompt, as with the SDKs' default", () =>
    Effect.scoped(Effect.gen(function*() {
      const appended = yield* systemOfFirstRequest({ appendSystemPrompt: "Appended marker 3b9." })
      assert.include(appended, "Appended marker 3b9.")
      assert.include(appended, "You are an agent working with the user")
      const empty = yield* systemOfFirstRequest({ systemPrompt: "" })
      assert.include(empty, "Claude Agent SDK")
      assert.notInclude(empty, "You are an agent working with the user")
      const unset = yield* systemOfFirstRequest({})
      assert.include(unset, "You are an agent working with the user")
    })).pipe(Effect.provide(processLayer)))
})
