/**
 * Permission settings that must not be silently undone or misread: `extraArgs` that set the
 * permission flags the program set another way (the CLI takes the last, and `extraArgs` come
 * last: `--dangerously-skip-permissions` put a session with a `Permissions` layer in bypass
 * mode), `setPermissionMode` reporting the mode the CLI says is in effect (it returned nothing),
 * and a handler `timeout` that is no positive duration (read as zero: every call timed out at
 * once). Each was wrong before (found by an audit); the cluster entity's permission mode is in
 * `ClusterSettings.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as Elicitation from "../src/Elicitation.ts"
import * as Launch from "../src/Launch.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const reasonOf = <A, E>(exit: Exit.Exit<A, E>) => {
  if (Exit.isSuccess(exit)) return undefined
  const fail = exit.cause.reasons.find((r) => r._tag === "Fail")
  return fail?._tag === "Fail" && ClaudeError.isClaudeError(fail.error) ? fail.error.reason : undefined
}

describe("extraArgs and the permission flags", () => {
  const withLayer: Launch.Wiring = { mcpServers: [], permissionPromptTool: true }
  const noLayer: Launch.Wiring = { mcpServers: [], permissionPromptTool: false }

  it.effect("flags that set the mode or the prompt tool are refused next to permissionMode or a Permissions layer, in both forms", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Launch.LaunchOptions, Launch.Wiring, string]> = [
        [{ permissionMode: "plan", extraArgs: { "dangerously-skip-permissions": null } }, withLayer, "--dangerously-skip-permissions"],
        [{ extraArgs: { "permission-mode": "bypassPermissions" } }, withLayer, "--permission-mode"],
        [{ extraArgs: ["--permission-prompt-tool", "mcp__policy__approve"] }, withLayer, "--permission-prompt-tool"],
        [{ permissionMode: "plan", extraArgs: ["--permission-mode=acceptEdits"] }, noLayer, "--permission-mode"],
        [{ permissionPromptToolName: "mcp__a__b", extraArgs: { "permission-prompt-tool": "mcp__c__d" } }, noLayer, "--permission-prompt-tool"],
        // The protocol's flags, in the array form too.
        [{ extraArgs: ["--output-format", "text"] }, noLayer, "--output-format"]
      ]
      for (const [options, wiring, flag] of cases) {
        const exit = yield* Effect.exit(Launch.validate(options, wiring))
        const reason = reasonOf(exit)
        assert.strictEqual(reason?._tag, "InvalidInput", `accepted: ${JSON.stringify(options)}`)
        assert.include(reason?.message ?? "", `extraArgs must not set ${flag}`)
      }
    }))

  it.effect("the same flags pass when nothing else sets the permissions", () =>
    Effect.gen(function*() {
      yield* Launch.validate({ extraArgs: { "permission-mode": "plan" } }, noLayer)
      yield* Launch.validate({ extraArgs: ["--permission-prompt-tool", "mcp__policy__approve"] }, noLayer)
      yield* Launch.validate({ permissionMode: "plan", extraArgs: ["--effort", "high"] }, withLayer)
      // It sets no mode: it only lets a later explicit switch to bypassPermissions through.
      yield* Launch.validate({ permissionMode: "default", extraArgs: { "allow-dangerously-skip-permissions": null } }, withLayer)
    }))
})

describe("setPermissionMode", () => {
  const answering = (answer: Record<string, unknown>) =>
    FakeCli.layer(FakeCli.conversation({
      onControl: (request, cli) => cli.emit(FakeCli.success(request, answer))
    }))

  for (
    const [answer, inEffect] of [
      [{ mode: "acceptEdits" }, "acceptEdits"],
      [{ mode: "plan" }, "plan"],
      [{ mode: "manual" }, "default"],
      [{}, undefined],
      [{ mode: "some-future-mode" }, undefined]
    ] as const
  ) {
    it.effect(`returns the mode the CLI says is in effect: ${JSON.stringify(answer)} → ${String(inEffect)}`, () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        assert.strictEqual(yield* session.setPermissionMode("plan"), inEffect)
      }).pipe(Effect.provide(answering(answer))))
  }
})

describe("a handler's timeout", () => {
  const bad: ReadonlyArray<Parameters<typeof Permissions.layer>[1]> = [{ timeout: Number.NaN }, { timeout: -1 }, { timeout: 0 }, {
    timeout: {}
  }]

  it.effect("a Permissions or Elicitation timeout that is no positive duration fails building the layer with InvalidInput", () =>
    Effect.gen(function*() {
      for (const options of bad) {
        const permissions = yield* Effect.exit(
          Layer.build(Permissions.layer(() => Effect.succeed(Permissions.allow()), options)).pipe(Effect.scoped)
        )
        assert.strictEqual(reasonOf(permissions)?._tag, "InvalidInput", `Permissions ${JSON.stringify(options)}`)
        assert.include(reasonOf(permissions)?.message ?? "", "The can_use_tool handler's timeout must be a positive duration")
        const elicitation = yield* Effect.exit(
          Layer.build(Elicitation.layer(() => Effect.succeed({ action: "decline" as const }), options)).pipe(Effect.scoped)
        )
        assert.strictEqual(reasonOf(elicitation)?._tag, "InvalidInput", `Elicitation ${JSON.stringify(options)}`)
      }
      // A positive one builds.
      yield* Layer.build(Permissions.layer(() => Effect.succeed(Permissions.allow()), { timeout: "30 seconds" })).pipe(Effect.scoped)
    }))
})
