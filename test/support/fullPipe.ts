/**
 * A transport whose CLI stopped reading its stdin: for the tests of a turn whose user line waits
 * for a full pipe to drain (the process transport's `stdin.write` returned false: a large message,
 * an image). It wraps another transport (a `FakeCli`); starts nothing itself.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Transport } from "../../src/Transport.ts"

/**
 * `inner`'s transport, whose first user line is handed over (`handedOver` then done) and then
 * waits, interruptibly as the transport of a real CLI does, for a drain that never comes.
 */
export const fullPipeOnFirstUserLine = (inner: Layer.Layer<Transport>, handedOver: Deferred.Deferred<void>) =>
  Layer.effect(
    Transport,
    Effect.map(Effect.service(Transport), (transport) =>
      Transport.of({
        open: (spec) =>
          Effect.map(transport.open(spec), (connection) => {
            let first = true
            return {
              ...connection,
              send: (line: string) => {
                if (!first || (JSON.parse(line) as Record<string, unknown>).type !== "user") return connection.send(line)
                first = false
                return connection.send(line).pipe(
                  Effect.andThen(Deferred.succeed(handedOver, undefined)),
                  Effect.andThen(Effect.interruptible(Effect.never))
                )
              }
            }
          })
      }))
  ).pipe(Layer.provide(inner))
