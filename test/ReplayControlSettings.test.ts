/**
 * A replay matched a control request of the program by its subtype alone: a program that now
 * switches to another permission mode (`acceptEdits` where the recorded one asked for `plan`) or
 * another model replayed without a word, and got the recorded answer (the recorded mode). What
 * such a request sets is part of its match now: a program that sets something else fails its
 * replay with `ReplayMismatch`; one that sets the same replays.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import type * as Transcript from "../src/Transcript.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Replay from "../src/testing/Replay.ts"

type Program = (session: Claude.Session) => Effect.Effect<unknown, ClaudeError.ClaudeError>

/** Records `recorded` on a conversation CLI, then replays it running `replayed`. */
const recordThenReplay = (recorded: Program, replayed: Program) =>
  Effect.gen(function*() {
    const lines: Array<Transcript.Line> = []
    const recorder = { record: (dir: "send" | "recv", msg: unknown) => void lines.push({ dir, msg }) }
    yield* Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open({ transcript: recorder, closeGrace: "1 second" })
      yield* recorded(session)
      yield* session.run("Clean the build")
    })).pipe(Effect.provide(FakeCli.replying(() => "done")))
    return yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open({ closeGrace: "1 second" })
      yield* replayed(session)
      return yield* session.run("Clean the build").pipe(Effect.timeout("3 seconds"))
    })).pipe(Effect.provide(Replay.layer(lines))))
  })

const assertMismatch = (exit: Exit.Exit<unknown, unknown>) => {
  assert.isTrue(Exit.isFailure(exit), "the replay accepted a control request setting something else")
  const error = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined
  assert.strictEqual((error as ClaudeError.ClaudeError | undefined)?.reason._tag, "ReplayMismatch")
}

describe("Replay: what a control request sets", () => {
  it.live("another permission mode is a mismatch", () =>
    Effect.gen(function*() {
      assertMismatch(yield* recordThenReplay((s) => s.setPermissionMode("plan"), (s) => s.setPermissionMode("acceptEdits")))
    }))

  it.live("another model is a mismatch", () =>
    Effect.gen(function*() {
      assertMismatch(yield* recordThenReplay((s) => s.setModel("claude-haiku-4-5"), (s) => s.setModel("claude-opus-4-1")))
    }))

  it.live("the same mode and model replay", () =>
    Effect.gen(function*() {
      const both: Program = (s) => Effect.andThen(s.setPermissionMode("plan"), s.setModel("claude-haiku-4-5"))
      const exit = yield* recordThenReplay(both, both)
      assert.isTrue(Exit.isSuccess(exit), String(exit))
    }))
})
