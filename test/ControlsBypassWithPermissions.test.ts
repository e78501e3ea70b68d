/**
 * `setPermissionMode("bypassPermissions")` in a session with a `Permissions` layer: the launch
 * refuses that mode with a layer (in it the CLI never asks, so the layer would never be called),
 * but the switch at run time was sent, and a CLI launched with
 * `--allow-dangerously-skip-permissions` (in `extraArgs`, which a layer allows) took it: a tool
 * call the layer denies ran without it being asked (shown on the real CLI 2.1.332 by a
 * reviewing helper). It is `InvalidInput` now, nothing sent; other modes still go through. The
 * raw escape hatch, `session.request({ subtype: "set_permission_mode", ... })`, is the same
 * switch: refused alike.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Permissions from "../src/Permissions.ts"
import { answering, modeAnswer } from "./support/answeringCli.ts"

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason | "success" =>
  Exit.isSuccess(exit)
    ? "success"
    : Option.match(Cause.findErrorOption(exit.cause), {
      onNone: () => assert.fail(`expected a typed failure, got ${Cause.pretty(exit.cause)}`),
      onSome: (error) => error.reason
    })

const denyAll = Permissions.layer(() => Effect.succeed(Permissions.deny("never")))

/**
 * In a session under `denyAll` launched with `--allow-dangerously-skip-permissions`, a switch to
 * bypassPermissions by `set`, then one to plan: the first is InvalidInput naming the Permissions
 * layer, the second goes through, and the CLI got the switch to plan only.
 */
const bypassRefusedPlanSent = <A>(
  set: (session: Claude.Session, mode: "bypassPermissions" | "plan") => Effect.Effect<A, ClaudeError.ClaudeError>
) =>
  Effect.gen(function*() {
    const received: Array<Record<string, unknown>> = []
    const [bypass, plan] = yield* Effect.gen(function*() {
      const session = yield* Claude.open({ extraArgs: ["--allow-dangerously-skip-permissions"] })
      const bypass = yield* Effect.exit(set(session, "bypassPermissions"))
      const plan = yield* Effect.exit(set(session, "plan"))
      return [bypass, plan] as const
    }).pipe(Effect.scoped, Effect.provide(denyAll), Effect.provide(answering(received, modeAnswer)))
    const reason = reasonOf(bypass)
    assert.strictEqual(reason === "success" ? reason : reason._tag, "InvalidInput")
    assert.include(reason === "success" ? "" : reason.message, "Permissions layer")
    assert.strictEqual(reasonOf(plan), "success")
    assert.deepStrictEqual(received.map((r) => [r.subtype, r.mode]), [["set_permission_mode", "plan"]])
  })

describe("setPermissionMode with a Permissions layer", () => {
  it.effect("bypassPermissions is InvalidInput, nothing sent; another mode is sent", () =>
    bypassRefusedPlanSent((session, mode) => session.setPermissionMode(mode)))

  it.effect("the raw request for bypassPermissions is InvalidInput too, nothing sent", () =>
    bypassRefusedPlanSent((session, mode) =>
      session.request({ subtype: "set_permission_mode", mode }, Schema.Struct({ mode: Schema.optional(Schema.String) }))
    ))

  it.effect("without a layer, bypassPermissions is sent (the CLI decides)", () =>
    Effect.gen(function*() {
      const received: Array<Record<string, unknown>> = []
      const mode = yield* Effect.gen(function*() {
        const session = yield* Claude.open({ permissionMode: "bypassPermissions" })
        return yield* session.setPermissionMode("bypassPermissions")
      }).pipe(Effect.scoped, Effect.provide(answering(received, modeAnswer)))
      assert.strictEqual(mode, "bypassPermissions")
      assert.deepStrictEqual(received.map((r) => r.subtype), ["set_permission_mode"])
    }))
})
