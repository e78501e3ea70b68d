/**
 * Guards that are in place, and answered in time: a CLI that says it did not put the hooks in
 * place (`hooks_applied: false`) or does not honor an `onFailure: "block"` the program asked for
 * (no `hook_on_failure_supported`, as the official SDK refuses it) gets no turn; a guard (or a
 * permission handler) stuck where it cannot be interrupted is still refused at its deadline, not
 * once it finishes (after the CLI's own deadline). Each was wrong before (found by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as Hooks from "../src/Hooks.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import type { Transport } from "../src/Transport.ts"
import { asProcess } from "./support/fakeCliHost.ts"
import { withWarnings } from "./support/outcomes.ts"
import { preToolUseRmRf as preToolUse } from "./support/hookInputs.ts"

const SESSION = "guards-in-place"

/** A CLI that answers `initialize` with `response`, then every user line with a success result. */
const answering = (response: Record<string, unknown>, users: { count: number }) =>
  FakeCli.layer((cli) =>
    Effect.gen(function*() {
      yield* FakeCli.answerInitialize(cli, response)
      while (true) {
        yield* cli.nextMatching((m) => m.type === "user")
        users.count++
        yield* cli.emit(FakeCli.result({ sessionId: SESSION }))
      }
    })
  )

const guard = Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash" }, () => Effect.succeed(Hooks.deny("never"))))
const blockingGuard = Hooks.layer(
  Hooks.on("PreToolUse", { matcher: "Bash", onFailure: "block" }, () => Effect.succeed(Hooks.deny("never")))
)

const runOnce = (transport: Layer.Layer<Transport>, hooks: Layer.Layer<Hooks.Hooks, ClaudeError.ClaudeError> = guard) =>
  Effect.gen(function*() {
    const session = yield* Claude.open()
    return yield* session.run("rm -rf /")
  }).pipe(Effect.scoped, Effect.provide([asProcess(transport), hooks]), Effect.provide(Logger.layer([])), Effect.exit)

const rejectedWith = <A, E>(exit: Exit.Exit<A, E>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const fail = exit.cause.reasons.find((r) => r._tag === "Fail")
  return fail?._tag === "Fail" && ClaudeError.isClaudeError(fail.error) && fail.error.reason._tag === "ControlRejected"
    ? fail.error.reason.message
    : undefined
}

describe("guards in place and in time", () => {
  it.effect("a CLI that answers initialize with hooks_applied: false gets no turn (its guards are not in place)", () =>
    Effect.gen(function*() {
      const users = { count: 0 }
      const exit = yield* runOnce(answering({ hooks_applied: false, hook_on_failure_supported: true }, users))
      assert.strictEqual(users.count, 0, "the CLI got the user line although it ignored the PreToolUse guard")
      assert.include(rejectedWith(exit) ?? "", "hooks_applied: false")
    }))

  it.effect("a CLI whose initialize answer lacks hook_on_failure_supported gets no turn when a guard sets onFailure: block", () =>
    Effect.gen(function*() {
      const users = { count: 0 }
      const exit = yield* runOnce(answering({ hooks_applied: true, hook_on_failure_supported: undefined }, users), blockingGuard)
      assert.strictEqual(users.count, 0, "the CLI got the user line although it ignores onFailure: block")
      assert.include(rejectedWith(exit) ?? "", "hook_on_failure_supported")
    }))

  it.effect("onFailure: block on an event that is no guard (nothing asked of the CLI) still runs on a CLI without hook_on_failure_supported", () =>
    Effect.gen(function*() {
      const users = { count: 0 }
      const hooks = Hooks.layer(Hooks.on("PostToolUse", { onFailure: "block" }, () => Effect.succeed(Hooks.allow())))
      const exit = yield* runOnce(answering({ hooks_applied: undefined, hook_on_failure_supported: undefined }, users), hooks)
      assert.strictEqual(users.count, 1)
      assert.isTrue(Exit.isSuccess(exit))
    }))

  it.effect("a guard with its default (fails closed, answered by the library) still runs on a CLI without hook_on_failure_supported (2.1.0, 2.1.200)", () =>
    Effect.gen(function*() {
      const users = { count: 0 }
      const exit = yield* runOnce(answering({ hooks_applied: undefined, hook_on_failure_supported: undefined }, users))
      assert.strictEqual(users.count, 1)
      assert.isTrue(Exit.isSuccess(exit))
    }))

  it.effect("a PreToolUse guard stuck in an uninterruptible region is still refused at its deadline", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const bound = Hooks.bind(
        yield* Effect.provide(
          Effect.service(Hooks.Hooks),
          Hooks.layer(Hooks.on("PreToolUse", { timeout: "5 seconds" }, () =>
            // e.g. the acquire of an acquireRelease (uninterruptible) waiting on a policy server
            Effect.uninterruptible(Effect.as(Deferred.await(gate), Hooks.allowWith({ command: "rm -rf /" })))))
        )
      )
      // The CLI is told 10 s; the library promises its refusal at 5 s, before the CLI gives up.
      assert.strictEqual(bound.initialize.PreToolUse![0]!.timeout, 10)
      const fiber = yield* Effect.forkChild(bound.dispatch("hook_0", preToolUse, "toolu_1"))
      yield* TestClock.adjust("9 seconds")
      const answeredByThen = fiber.pollUnsafe() !== undefined
      yield* Deferred.succeed(gate, undefined)
      const answer = yield* Fiber.join(fiber)
      assert.isTrue(answeredByThen, "no answer 4 s past the deadline: the CLI's own timeout (10 s) comes first")
      assert.strictEqual(
        (answer.hookSpecificOutput as { permissionDecision?: string } | undefined)?.permissionDecision,
        "deny",
        "the handler's allow was sent although it came after its deadline"
      )
    }).pipe(Effect.provide(Logger.layer([]))))

  it.effect("a permission handler stuck in an uninterruptible region is still denied at its deadline", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const permissions = Permissions.bind(
        yield* Effect.provide(
          Effect.service(Permissions.Permissions),
          Permissions.layer(() => Effect.uninterruptible(Effect.as(Deferred.await(gate), Permissions.allow())), { timeout: "5 seconds" })
        )
      )
      const fiber = yield* Effect.forkChild(
        permissions.decide({ subtype: "can_use_tool", tool_name: "Bash", input: { command: "rm -rf /" }, tool_use_id: "toolu_1" })
      )
      yield* TestClock.adjust("6 seconds")
      const answeredByThen = fiber.pollUnsafe() !== undefined
      yield* Deferred.succeed(gate, undefined)
      const answer = yield* Fiber.join(fiber)
      assert.isTrue(answeredByThen, "no answer past the deadline")
      assert.strictEqual(answer.behavior, "deny")
    }).pipe(Effect.provide(Logger.layer([]))))

  // The handler's own clean-up waits for it: the session's close waits for its handlers to stop,
  // within `closeGrace`, then leaves the stuck one (a fiber, no process) with a warning.
  for (const kind of ["hook", "permission", "permission handler without a timeout"] as const) {
    it.effect(`closing the session while a ${kind} is stuck in an uninterruptible region ends within closeGrace, with a warning`, () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const stuck = Effect.uninterruptible(Effect.andThen(Deferred.succeed(started, undefined), Effect.never))
        const request = kind === "hook"
          ? { subtype: "hook_callback", callback_id: "hook_0", input: preToolUse, tool_use_id: "toolu_1" }
          : { subtype: "can_use_tool", tool_name: "Bash", input: { command: "ls" }, tool_use_id: "toolu_1" }
        const cli = FakeCli.layer((cli) =>
          Effect.gen(function*() {
            yield* FakeCli.answerInitialize(cli)
            yield* cli.emit({ type: "control_request", request_id: "req-1", request })
            return yield* Effect.never
          })
        )
        const handler = kind === "hook"
          ? Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash", timeout: "5 seconds" }, () => stuck))
          : kind === "permission"
          ? Permissions.layer(() => stuck, { timeout: "5 seconds" })
          : Permissions.layer(() => stuck)
        const scope = yield* Scope.make()
        const closed = yield* withWarnings(Effect.gen(function*() {
          yield* Claude.open({ closeGrace: "2 seconds" }).pipe(Scope.provide(scope), Effect.provide([cli, handler]))
          yield* Deferred.await(started)
          const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void), { startImmediately: true })
          for (let i = 0; i < 50; i++) yield* Effect.yieldNow
          // The CLI's share of closeGrace (stdin EOF, then the kill) and the handlers' wait.
          yield* TestClock.adjust("2 seconds")
          for (let i = 0; i < 50; i++) yield* Effect.yieldNow
          yield* TestClock.adjust("2 seconds")
          for (let i = 0; i < 50; i++) yield* Effect.yieldNow
          assert.isDefined(closing.pollUnsafe(), `the session's close still waits on the stuck ${kind} 4 s later`)
        }))
        assert.isTrue(Exit.isSuccess(closed.exit), String(closed.exit))
        const subtype = kind === "hook" ? "hook_callback" : "can_use_tool"
        assert.include(
          closed.warnings,
          `closing the session: the handler of the CLI's ${subtype} request req-1 did not stop within closeGrace (2s): ` +
            "left to stop in the background (it is where it cannot be interrupted)"
        )
      }))
  }

  // Effect reads these as a deadline of zero or less: a guard whose handler needed any time was
  // refused every call ("did not answer within 0 ms"), and a typo threw from Hooks.on (found by a
  // reviewing helper). Permissions, Elicitation and UserDialogs refused them already.
  it.effect("a hook timeout that is no positive duration is InvalidInput when its layer is built", () =>
    Effect.gen(function*() {
      for (const timeout of [Number.NaN, -1, 0, "5 secs"] as const) {
        const built = yield* Effect.exit(Effect.provide(
          Effect.service(Hooks.Hooks),
          Hooks.layer(Hooks.on("PreToolUse", { timeout: timeout as never }, () => Effect.succeed(Hooks.allow())))
        ))
        const error = Exit.isFailure(built) ? built.cause.reasons.find((r) => r._tag === "Fail") : undefined
        const reason = error?._tag === "Fail" ? error.error.reason : undefined
        assert.strictEqual(reason?._tag, "InvalidInput", `${String(timeout)}: ${String(built)}`)
        assert.include((reason as ClaudeError.InvalidInput).description, "Hooks: the PreToolUse hook's timeout must be a positive duration")
      }
    }))
})

