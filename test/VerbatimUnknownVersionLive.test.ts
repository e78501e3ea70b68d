/**
 * The verbatim gate on a CLI process whose version cannot be told (its `initialize` names none,
 * as 2.1.200 and older do, and its `claude --version` prints none: a wrapper, a broken install).
 * The gate took such a CLI to honour `client_composed`, as the pinned 2.1.332 does; but 2.1.332
 * names its version in `initialize`, so a process that names none is an older CLI, which may
 * ignore the flag and read the turn's `@path` mentions, the very thing the program asked it not
 * to (found by a review). A verbatim turn to it is refused now (`InvalidInput`, nothing sent);
 * a typed turn still runs, and in-memory CLIs (no process) are not held.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Path from "node:path"
import * as Claude from "../src/Claude.ts"
import { processLayer } from "./support/live.ts"

const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")

describe("verbatim turns on a CLI process of unknown version", { timeout: 60_000 }, () => {
  for (const [name, env] of [
    ["no version anywhere", { FAKE_CLAUDE_VERSION: "unknown", FAKE_CLAUDE_INIT_VERSION: "0" }],
    ["a version that is no x.y.z", { FAKE_CLAUDE_VERSION: "dev-build" }]
  ] as const) {
    it.live(`${name}: a verbatim turn is InvalidInput, a typed one runs`, () =>
      Effect.gen(function*() {
        const session = yield* Claude.open({ executable: FAKE, env: { FAKE_CLAUDE_MODE: "", ...env } })
        const error = yield* Effect.flip(session.run({ text: "Summarize @notes.txt", verbatim: true }))
        assert.strictEqual(error.reason._tag, "InvalidInput", String(error))
        const result = yield* session.run("hello")
        assert.isFalse(result.is_error)
      }).pipe(Effect.scoped, Effect.provide(processLayer)))
  }
})
