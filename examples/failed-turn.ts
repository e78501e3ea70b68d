/**
 * When a turn fails: the API is overloaded (529) for the first question, and answers the second.
 * A failed turn fails `run` (and a turn's stream, after its result) with a `ClaudeError` whose
 * reason says why; `Effect.catchReason` handles one reason by name, and `reason._tag` tells them
 * apart. With `errorResults: "return"` the same result comes back as data instead.
 *
 * `node examples/failed-turn.ts` runs it against the fake model.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { fakeModel, isMain, processLayer } from "./support.ts"

/** What a turn came to, in words. */
const describe = (run: Effect.Effect<Claude.TurnResult, ClaudeError.ClaudeError>): Effect.Effect<string> =>
  run.pipe(
    Effect.map((result) => `answered: ${result.result}`),
    // One reason by name: its fields are typed (status, errorType, the result it came from).
    Effect.catchReason("ClaudeError", "ApiError", (reason) =>
      Effect.succeed(`API error ${reason.status} (${reason.errorType}), retryable: ${reason.isRetryable}`)),
    // The others, by their tag.
    Effect.catch((error) =>
      Effect.succeed(
        error.reason._tag === "NotAuthenticated"
          ? "not logged in: run `claude` and /login, or set ANTHROPIC_API_KEY"
          : `failed: ${error.reason._tag}: ${error.message}`
      )
    )
  )

/** Runs the two questions with failures as errors, then the first one again with results as data. */
export const program: Effect.Effect<{
  readonly outcomes: ReadonlyArray<string>
  readonly asData: { readonly isError: boolean; readonly status: number | null | undefined }
}, ClaudeError.ClaudeError> = Effect.gen(function*() {
  const overloaded = FakeModel.httpError(529)
  const { options } = yield* fakeModel([overloaded, overloaded, FakeModel.text("Now it works.")])
  const session = yield* Claude.open(options)
  const outcomes = [yield* describe(session.run("First question")), yield* describe(session.run("Second question"))]
  for (const outcome of outcomes) yield* Console.log(outcome)

  // Results as data: `run` succeeds and the program reads `is_error` itself.
  const data = yield* fakeModel([overloaded, overloaded])
  const plain = yield* Claude.open({ ...data.options, errorResults: "return" })
  const result = yield* plain.run("First question")
  yield* Console.log(`as data: is_error ${result.is_error}, api_error_status ${result.api_error_status}`)
  return { outcomes, asData: { isError: result.is_error, status: result.api_error_status } }
}).pipe(Effect.scoped, Effect.provide(processLayer))

if (isMain(import.meta)) NodeRuntime.runMain(program)
