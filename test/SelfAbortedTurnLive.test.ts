/**
 * A turn the CLI ends as interrupted (`aborted_*`) though the program asked for no interrupt (a
 * SIGINT from outside: here the model's own Bash command) read as no failure: `run`,
 * `Claude.query` and `generateText` succeeded (found by a reviewing helper; failing before). Only
 * an abort the program asked for (an interrupt, a denial with `interrupt: true`) is not a failure
 * (`TurnResult.turn.interruptRequested`); the program's own interrupt still gives the aborted result.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Claude from "../src/Claude.ts"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

/** The model's Bash command signals the CLI (SIGINT): the CLI aborts the turn though the program never asked. */
const script = () => [
  FakeModel.toolUse("Bash", { command: "kill -INT $PPID; sleep 3", description: "x" }),
  FakeModel.text("never")
]

describe("a turn the CLI aborted by itself (no interrupt from the program, real CLI)", { timeout: 120_000 }, () => {
  it.live("session.run fails with TurnFailed", () =>
    Effect.gen(function*() {
      const { options } = yield* live(script())
      const session = yield* Claude.open(options)
      const exit = yield* Effect.exit(session.run("hello"))
      assert.isTrue(Exit.isFailure(exit), `run succeeded with ${Exit.isSuccess(exit) ? `${exit.value.subtype}/${exit.value.terminal_reason}` : ""}`)
      const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : Option.none()
      // (The CLI then exits on the SIGINT: the session does not live on here.)
      assert.strictEqual(Option.isSome(error) ? error.value.reason._tag : "none", "TurnFailed")
    }).pipe(Effect.provide(processLayer)))

  it.live("Claude.query (which the program cannot interrupt but by interrupting its fiber) does not succeed", () =>
    Effect.gen(function*() {
      const { options } = yield* live(script())
      const exit = yield* Effect.exit(Claude.query("hello", options))
      assert.isTrue(Exit.isFailure(exit), `query succeeded with ${Exit.isSuccess(exit) ? `${exit.value.subtype}/${exit.value.terminal_reason}` : ""}`)
    }).pipe(Effect.provide(processLayer)))

  it.live("LanguageModel.generateText does not succeed", () =>
    Effect.gen(function*() {
      const { options } = yield* live(script())
      const exit = yield* Effect.exit(LanguageModel.generateText({ prompt: "hello" }).pipe(
        Effect.provide(ClaudeCodeLanguageModel.layer(options).pipe(Layer.provide(processLayer)))
      ))
      assert.isTrue(Exit.isFailure(exit), `generateText succeeded: ${Exit.isSuccess(exit) ? JSON.stringify({ text: exit.value.text, finishReason: exit.value.finishReason }) : ""}`)
    }).pipe(Effect.provide(processLayer)))
})
