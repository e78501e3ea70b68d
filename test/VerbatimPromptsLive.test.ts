/**
 * Verbatim user turns on the real CLI. CLI 2.1.332 reads the file of an `@path` mention in a
 * prompt into the model's context (and runs a prompt's slash command): text the program's user
 * did not type (a chat message of someone else, a model's output) could make it read a file. A
 * turn sent `verbatim` (or every turn, with `verbatimPrompts`) goes as written; a CLI older than
 * 2.1.248 would ignore the flag, so the turn is refused there, never sent.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { installOnce } from "./support/cliVersions.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

const SECRET = "note-content-7c1e"
const PROMPT = "Summarize @notes.txt"

/** A session whose cwd holds `notes.txt`; the model's first request's messages, as JSON. */
const firstRequestOf = (options: Offline.Options, input: string | { readonly text: string; readonly verbatim?: boolean }) =>
  Effect.gen(function*() {
    const offline = yield* Offline.open([FakeModel.text("ok")], options)
    Fs.writeFileSync(Path.join(offline.cwd, "notes.txt"), `${SECRET}\n`)
    yield* offline.session.run(input)
    const [request] = yield* offline.model.messageRequests
    return JSON.stringify(request?.messages)
  })

describe("verbatim user turns (real CLI)", { timeout: 120_000 }, () => {
  it.live("a plain turn's @path mention is read into the prompt; a verbatim turn's, and every turn's with verbatimPrompts, is not", () =>
    Effect.scoped(Effect.gen(function*() {
      assert.include(yield* firstRequestOf({ executable: cliPath }, PROMPT), SECRET, "the CLI reads the mention (the premise)")
      const verbatim = yield* firstRequestOf({ executable: cliPath }, { text: PROMPT, verbatim: true })
      assert.notInclude(verbatim, SECRET)
      assert.include(verbatim, PROMPT)
      const all = yield* firstRequestOf({ executable: cliPath, verbatimPrompts: true }, PROMPT)
      assert.notInclude(all, SECRET)
      assert.include(all, PROMPT)
      // A turn's own verbatim: false opts it out.
      assert.include(yield* firstRequestOf({ executable: cliPath, verbatimPrompts: true }, { text: PROMPT, verbatim: false }), SECRET)
    })).pipe(Effect.provide(processLayer)))

  it.live("CLI 2.1.200, which ignores client_composed: a verbatim turn is refused (InvalidInput), never sent to the model", () =>
    Effect.scoped(Effect.gen(function*() {
      const { executable } = yield* installOnce("2.1.200")
      const offline = yield* Offline.open([FakeModel.text("ok")], { executable, verbatimPrompts: true })
      Fs.writeFileSync(Path.join(offline.cwd, "notes.txt"), `${SECRET}\n`)
      const error = yield* Effect.flip(offline.session.run(PROMPT))
      assert.strictEqual(error.reason._tag, "InvalidInput", String(error))
      assert.include(error.message, "2.1.248")
      assert.lengthOf(
        (yield* offline.model.messageRequests).filter((request) => JSON.stringify(request.messages).includes("notes.txt")),
        0
      )
    })).pipe(Effect.provide(processLayer)))
})
