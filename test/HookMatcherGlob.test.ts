/**
 * A matcher written as a glob, as permission rules are (`mcp__*__delete`), is a regular
 * expression to CLI 2.1.332, where `_*` is any number of `_`: it matched no tool of any server,
 * so the guard guarded nothing, silently (`HookMatcherGlobLive.test.ts` on the real CLI). Such a
 * matcher is `InvalidInput` when the layer is built, naming the regular expression it means; a
 * glob the CLI happens to read as meant (`mcp__github__*`, `mcp__*`) still builds.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Hooks from "../src/Hooks.ts"

const built = (matcher: string) =>
  Hooks.register(Hooks.on("PreToolUse", { matcher }, () => Effect.succeed(Hooks.deny("no")))).pipe(
    Effect.map(() => "built"),
    Effect.catch((error) => Effect.succeed(error.message))
  )

describe("a hook matcher written as a glob", () => {
  for (const matcher of ["mcp__*__delete", "mcp__*__delete_*", "mcp__*_admin", "Write|mcp__*__delete", "^mcp__github__*$"]) {
    it.effect(`${matcher} is InvalidInput, naming the regular expression it means`, () =>
      Effect.gen(function*() {
        const message = yield* built(matcher)
        assert.include(message, "glob")
        assert.include(message, ".*")
      }))
  }

  for (const matcher of ["mcp__github__*", "mcp__*", "mcp__*__*", "mcp__.*__delete", "Bash*", "Web*Fetch", "mcp__git*__x"]) {
    it.effect(`${matcher} builds (the CLI reads it as it means, or it is no glob of names)`, () =>
      Effect.gen(function*() {
        assert.strictEqual(yield* built(matcher), "built")
      }))
  }
})
