/**
 * One question, one answer: open a session, run one turn, read the result.
 *
 * `node examples/one-shot.ts` runs it against the fake model. Against the real model, drop the
 * `fakeModel` line and open the session with your own options (`Claude.open({ model: "sonnet" })`).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { fakeModel, isMain, processLayer } from "./support.ts"

/** Asks one question and returns the turn's result. */
export const program: Effect.Effect<Claude.TurnResult, ClaudeError.ClaudeError> = Effect.gen(function*() {
  const { options } = yield* fakeModel([FakeModel.text("The capital of France is Paris.")])
  const session = yield* Claude.open(options)
  const result = yield* session.run("What is the capital of France?")
  yield* Console.log(`${result.result} (${result.num_turns} model turn, $${result.turn.costUsd.toFixed(4)})`)
  return result
}).pipe(Effect.scoped, Effect.provide(processLayer))

if (isMain(import.meta)) NodeRuntime.runMain(program)
