/**
 * A replay fails with `ReplayMismatch` when a hook of the program now decides otherwise than the
 * recorded one did (README: an answer to the CLI is matched by "the decision it carries"). A
 * `PermissionRequest` hook's decision (`hookSpecificOutput.decision.behavior`), an `Elicitation`
 * hook's `action` and a `PermissionDenied` hook's `retry` were not read: a hook that now allows
 * what the recorded one denied replayed as if nothing had changed, with the recorded turn.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Hooks from "../src/Hooks.ts"
import type * as HookEvents from "../src/HookEvents.ts"
import type * as Transcript from "../src/Transcript.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Replay from "../src/testing/Replay.ts"

type Fired = "PermissionRequest" | "Elicitation" | "PermissionDenied"

const inputs: Record<Fired, Record<string, unknown>> = {
  PermissionRequest: { tool_name: "Bash", tool_input: { command: "rm -rf build" }, tool_use_id: "toolu_1" },
  Elicitation: { mcp_server_name: "docs", message: "Pick one", requested_schema: { type: "object", properties: {} } },
  PermissionDenied: { tool_name: "Bash", tool_input: { command: "rm -rf build" }, tool_use_id: "toolu_1", reason: "denied" }
}

/** A CLI that fires `event` at the program's hook during the first turn. */
const recordingCli = (event: Fired) =>
  FakeCli.layer((cli) =>
    Effect.gen(function*() {
      yield* FakeCli.answerInitialize(cli)
      const user = yield* cli.nextMatching((m) => m.type === "user")
      yield* Effect.ignore(FakeCli.callHook(cli, event, inputs[event]))
      for (const line of FakeCli.textTurn({ sessionId: "s-1", text: "done", userMessageUuid: String(user.uuid) })) {
        yield* cli.emit(line)
      }
      return yield* Effect.exit(cli.next).pipe(Effect.as(0))
    })
  )

/** Records a turn under the hook answering `recorded`, then replays it under one answering `replayed`. */
const recordThenReplay = <K extends Fired>(event: K, recorded: HookEvents.HookOutput<K>, replayed: HookEvents.HookOutput<K>) =>
  Effect.gen(function*() {
    const lines: Array<Transcript.Line> = []
    const recorder = { record: (dir: "send" | "recv", msg: unknown) => void lines.push({ dir, msg }) }
    const hooks = (output: HookEvents.HookOutput<K>) => Hooks.layer(Hooks.on(event, () => Effect.succeed(output) as never))
    yield* Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open({ transcript: recorder, closeGrace: "1 second" })
      yield* session.run("Clean the build")
    })).pipe(Effect.provide(hooks(recorded)), Effect.provide(recordingCli(event)))
    return yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open({ closeGrace: "1 second" })
      return yield* session.run("Clean the build").pipe(Effect.timeout("3 seconds"))
    })).pipe(Effect.provide(hooks(replayed)), Effect.provide(Replay.layer(lines))))
  })

const assertMismatch = (exit: Exit.Exit<unknown, unknown>) => {
  assert.isTrue(Exit.isFailure(exit), "the replay accepted a hook deciding otherwise")
  const error = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined
  assert.strictEqual((error as ClaudeError.ClaudeError | undefined)?.reason._tag, "ReplayMismatch")
}

describe("Replay: a hook deciding otherwise", () => {
  it.live("a PermissionRequest hook that now allows what the recorded one denied is a mismatch", () =>
    Effect.gen(function*() {
      assertMismatch(yield* recordThenReplay(
        "PermissionRequest",
        { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "no rm" } } },
        { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } } }
      ))
    }))

  it.live("an Elicitation hook that now cancels what the recorded one accepted is a mismatch", () =>
    Effect.gen(function*() {
      assertMismatch(yield* recordThenReplay(
        "Elicitation",
        { hookSpecificOutput: { hookEventName: "Elicitation", action: "accept", content: {} } },
        { hookSpecificOutput: { hookEventName: "Elicitation", action: "cancel" } }
      ))
    }))

  it.live("a PermissionDenied hook that now retries is a mismatch", () =>
    Effect.gen(function*() {
      assertMismatch(yield* recordThenReplay(
        "PermissionDenied",
        { hookSpecificOutput: { hookEventName: "PermissionDenied", retry: false } },
        { hookSpecificOutput: { hookEventName: "PermissionDenied", retry: true } }
      ))
    }))

  it.live("the same decision in other words replays", () =>
    Effect.gen(function*() {
      const exit = yield* recordThenReplay(
        "PermissionRequest",
        { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "no (10:01)" } } },
        { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "no (10:02)" } } }
      )
      assert.isTrue(Exit.isSuccess(exit), String(exit))
    }))
})
