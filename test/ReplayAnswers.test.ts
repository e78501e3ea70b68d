/**
 * A replay fails with `ReplayMismatch` when the program answers the CLI otherwise than the
 * recorded one did (README, "Transcripts"): a permission handler that now denies what was
 * allowed. Before, an answer was matched by its request id and subtype alone, so the replayed
 * program got the recorded, allowed tool run (found by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Permissions from "../src/Permissions.ts"
import type * as Transcript from "../src/Transcript.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Replay from "../src/testing/Replay.ts"

const recordingCli = (decisions: Array<unknown>) =>
  FakeCli.layer((cli) =>
    Effect.gen(function*() {
      yield* FakeCli.answerInitialize(cli)
      const model = yield* cli.nextMatching((m) => m.type === "control_request")
      yield* cli.emit(FakeCli.success(model as never, { model: "sonnet" }))
      yield* cli.nextMatching((m) => m.type === "user")
      const decision = yield* FakeCli.askPermission(cli, "Bash", { command: "rm -rf build" }, { toolUseId: "toolu_1" })
      decisions.push(decision)
      for (const line of FakeCli.textTurn({ sessionId: "s-1", text: `tool said: ${decision.behavior}` })) {
        yield* cli.emit(line)
      }
      return yield* Effect.exit(cli.next).pipe(Effect.as(0))
    })
  )

/** Records a turn under `recorded`'s permission decisions, then replays it under `replayed`'s. */
const recordThenReplay = (recorded: Permissions.PermissionResult, replayed: Permissions.PermissionResult) =>
  Effect.gen(function*() {
    const lines: Array<Transcript.Line> = []
    const recorder = { record: (dir: "send" | "recv", msg: unknown) => void lines.push({ dir, msg }) }
    const decisions: Array<unknown> = []
    yield* Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open({ transcript: recorder, closeGrace: "1 second" })
      yield* session.setModel("sonnet")
      yield* session.run("Clean the build")
    })).pipe(
      Effect.provide(Permissions.layer(() => Effect.succeed(recorded))),
      Effect.provide(recordingCli(decisions))
    )
    return yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open({ closeGrace: "1 second" })
      yield* session.setModel("sonnet")
      return yield* session.run("Clean the build")
    })).pipe(
      Effect.provide(Permissions.layer(() => Effect.succeed(replayed))),
      Effect.provide(Replay.layer(lines))
    ))
  })

describe("replay matching", () => {
  it.live("a program whose permission handler now denies what the recorded one allowed fails its replay with ReplayMismatch", () =>
    Effect.gen(function*() {
      const exit = yield* recordThenReplay(Permissions.allow(), Permissions.deny("no rm"))
      assert.isTrue(
        Exit.isFailure(exit),
        `replay accepted a deny for a recorded allow; the turn's result: ${Exit.isSuccess(exit) ? exit.value.result : ""}`
      )
      const error = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined
      assert.strictEqual((error as ClaudeError.ClaudeError | undefined)?.reason._tag, "ReplayMismatch")
    }))

  it.live("the same decision in other words (a deny whose message names the time) replays", () =>
    Effect.gen(function*() {
      const exit = yield* recordThenReplay(Permissions.deny("no rm (at 10:01)"), Permissions.deny("no rm (at 10:02)"))
      assert.isTrue(Exit.isSuccess(exit), String(exit))
    }))
})
