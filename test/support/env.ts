/**
 * A variable of this process's environment set while a scope is open, and put back as it was
 * (removed when it had none) when the scope closes, a failing test too.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

export const withEnv = (name: string, value: string): Effect.Effect<void, never, Scope.Scope> =>
  Effect.asVoid(Effect.acquireRelease(
    Effect.sync(() => {
      const before = process.env[name]
      process.env[name] = value
      return before
    }),
    (before) =>
      Effect.sync(() => {
        if (before === undefined) delete process.env[name]
        else process.env[name] = before
      })
  ))
