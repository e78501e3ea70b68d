/**
 * A `Permissions` handler's answer with an optional key set to `undefined` (what TypeScript allows
 * without `exactOptionalPropertyTypes`: `updatedInput: maybeRewritten`), which JSON leaves out.
 * Read as the CLI will read it: the key absent, the decision as given.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Claude from "../src/Claude.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

/** The decision the CLI gets for a Bash call when the handler answers `answer`. */
const decided = (answer: Permissions.PermissionResult) =>
  Effect.gen(function*() {
    const result = yield* Deferred.make<Permissions.PermissionResult>()
    const cli = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        yield* Deferred.succeed(result, yield* FakeCli.askPermission(cli, "Bash", { command: "ls" }))
        return yield* Effect.never
      })
    )
    return yield* Effect.gen(function*() {
      yield* Claude.open()
      return yield* Deferred.await(result)
    }).pipe(
      Effect.scoped,
      Effect.provide([cli, Permissions.layer(() => Effect.succeed(answer))]),
      Effect.provide(Logger.layer([]))
    )
  })

describe("Permissions: an answer with an optional key set to undefined", () => {
  it.effect("an allow with updatedInput: undefined allows, with the call's own input", () =>
    Effect.gen(function*() {
      const answer = { behavior: "allow", updatedInput: undefined } as unknown as Permissions.PermissionResult
      const result = yield* decided(answer)
      assert.strictEqual(result.behavior, "allow", JSON.stringify(result))
    }))

  it.effect("a deny with interrupt: undefined denies with its own message", () =>
    Effect.gen(function*() {
      const answer = { behavior: "deny", message: "not now", interrupt: undefined } as unknown as Permissions.PermissionResult
      const result = yield* decided(answer)
      assert.deepStrictEqual({ behavior: result.behavior, message: (result as { message?: string }).message }, {
        behavior: "deny",
        message: "not now"
      })
    }))
})
