/**
 * A replay fails with `ReplayMismatch` when the program answers the CLI otherwise than the
 * recorded one did (README, "Transcripts"): a permission handler that now denies what was
 * allowed. Before, an answer was matched by its request id and subtype alone, so the replayed
 * program got the recorded, allowed tool run (found by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Claude from "../src/Claude.ts"
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

describe("replay matching", () => {
  it.live("a program whose permission handler now denies what the recorded one allowed fails its replay with ReplayMismatch", () =>
    Effect.gen(function*() {
      const lines: Array<Transcript.Line> = []
      const recorder = { record: (dir: "send" | "recv", msg: unknown) => void lines.push({ dir, msg }) }
      const decisions: Array<unknown> = []
      // Recording: the handler allows, the model is sonnet.
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ transcript: recorder, closeGrace: "1 second" })
        yield* session.setModel("sonnet")
        const result = yield* session.run("Clean the build")
        assert.strictEqual(result.result, "tool said: allow")
      })).pipe(
        Effect.provide(Permissions.layer(() => Effect.succeed(Permissions.allow()))),
        Effect.provide(recordingCli(decisions))
      )
      assert.deepStrictEqual((decisions[0] as { behavior: string }).behavior, "allow")
      const recordedAnswer = lines.find((l) => l.dir === "send" && (l.msg as { type: string }).type === "control_response")
      assert.include(JSON.stringify(recordedAnswer), "\"allow\"")

      // Replay: the handler now denies, the model is opus.
      const sent: Array<string> = []
      const exit = yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({
          closeGrace: "1 second",
          transcript: { record: (dir, msg) => void (dir === "send" && sent.push(JSON.stringify(msg))) }
        })
        yield* session.setModel("opus")
        return yield* session.run("Clean the build")
      })).pipe(
        Effect.provide(Permissions.layer(() => Effect.succeed(Permissions.deny("no rm")))),
        Effect.provide(Replay.layer(lines))
      ))
      // The program really wrote something else: a deny and another model.
      assert.isTrue(sent.some((s) => s.includes("\"deny\"") && s.includes("no rm")), "the replayed program denied")
      assert.isTrue(sent.some((s) => s.includes("set_model") && s.includes("opus")), "the replayed program asked for opus")
      // README: fails with ReplayMismatch when the program writes something else.
      assert.isTrue(
        Exit.isFailure(exit),
        `replay accepted a deny for a recorded allow and opus for sonnet; the turn's result: ${
          Exit.isSuccess(exit) ? exit.value.result : ""
        }`
      )
    }))
})
