/**
 * Collecting a session's events in tests.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Claude from "../../src/Claude.ts"

/**
 * Every event of the session from now on (until the session ends), into an array the test reads.
 * Forked at once: `events` subscribes when its stream starts.
 */
export const collectEvents = (session: Claude.Session): Effect.Effect<ReadonlyArray<Claude.Event>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const seen: Array<Claude.Event> = []
    yield* session.events.pipe(
      Stream.runForEach((event) => Effect.sync(() => seen.push(event))),
      Effect.ignore,
      Effect.forkScoped({ startImmediately: true })
    )
    return seen
  })
