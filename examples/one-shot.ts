/**
 * One question, one answer: `Claude.query` opens a session, runs one turn, closes the session and
 * returns the result.
 *
 * `node examples/one-shot.ts` runs it against the fake model. Against the real model, drop the
 * `fakeModel` line and `Effect.scoped` (which only keeps the fake model up), and pass your own
 * options (`Claude.query(prompt, { model: "sonnet" })`).
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
  const result = yield* Claude.query("What is the capital of France?", options)
  yield* Console.log(`${result.result} (${result.num_turns} model turn, $${result.turn.costUsd.toFixed(4)})`)
  return result
}).pipe(Effect.scoped, Effect.provide(processLayer))

if (isMain(import.meta)) NodeRuntime.runMain(program)
