/**
 * A session against a FakeCli that answers `initialize` and then plays a script that asks the
 * host (hooks, permissions, MCP tools, elicitations, dialogs): the unit tests of those requests.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Claude from "../../src/Claude.ts"
import type * as ClaudeError from "../../src/ClaudeError.ts"
import * as FakeCli from "../../src/testing/FakeCli.ts"
import { Transport } from "../../src/Transport.ts"

/**
 * Opens a session against a FakeCli that answers `initialize`, runs `script`, and hands back its
 * exit, with every message the session wrote; the session is closed before it returns.
 */
export const fromCli = <A>(script: (cli: FakeCli.FakeCliHandle) => Effect.Effect<A, ClaudeError.ClaudeError>) =>
  Effect.gen(function*() {
    const done = yield* Deferred.make<{
      readonly exit: Exit.Exit<A, ClaudeError.ClaudeError>
      readonly received: ReadonlyArray<Record<string, unknown>>
    }>()
    const cli = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        const exit = yield* Effect.exit(script(cli))
        yield* Deferred.succeed(done, { exit, received: [...cli.received] })
        return yield* Effect.never
      })
    )
    return yield* Effect.gen(function*() {
      yield* Claude.open()
      return yield* Deferred.await(done)
    }).pipe(Effect.scoped, Effect.provide(cli), Effect.provide(Logger.layer([])))
  })

/**
 * `layer`'s CLI with a process id, as a real one has: the session then holds its turns until
 * `initialize` is answered and the CLI's version checked (a fake without one is not held).
 */
export const asProcess = (layer: Layer.Layer<Transport>): Layer.Layer<Transport> =>
  Layer.effect(
    Transport,
    Effect.map(Effect.service(Transport), (fake) =>
      Transport.of({ open: (spec) => Effect.map(fake.open(spec), (connection) => ({ ...connection, pid: 4242 })) }))
  ).pipe(Layer.provide(layer))
