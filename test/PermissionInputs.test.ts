/**
 * Permission settings that must not be silently undone or misread: `extraArgs` that set the
 * permission flags the program set another way (the CLI takes the last, and `extraArgs` come
 * last: `--dangerously-skip-permissions` put a session with a `Permissions` layer in bypass
 * mode), `setPermissionMode` reporting the mode the CLI says is in effect (it returned nothing),
 * a handler `timeout` that is no positive duration (read as zero: every call timed out at once),
 * and the cluster entity switching to `bypassPermissions` with no live CLI (the next CLI was
 * launched in it, where a live CLI refuses the switch). Each was wrong before (found by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestRunner from "effect/cluster/TestRunner"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as Elicitation from "../src/Elicitation.ts"
import * as Launch from "../src/Launch.ts"
import * as Permissions from "../src/Permissions.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import type { Transport } from "../src/Transport.ts"

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

describe("the cluster entity's permission mode", () => {
  const S1 = "11111111-1111-4111-8111-111111111111"
  const S2 = "22222222-2222-4222-8222-222222222222"
  const uuid = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, "0")}`

  /** A CLI that answers set_permission_mode with `answerMode`; records each launch's mode. */
  const modeCli = (answerMode: string) => {
    const modes: Array<string | undefined> = []
    const transport = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        const args = cli.spec.args
        const resume = args.find((a) => a.startsWith("--resume="))
        const sessionId = resume !== undefined ? resume.slice("--resume=".length) : args[args.indexOf("--session-id") + 1]!
        modes.push(args.includes("--permission-mode") ? args[args.indexOf("--permission-mode") + 1] : undefined)
        return yield* FakeCli.conversation({
          sessionId,
          onControl: (request, cli) => cli.emit(FakeCli.success(request, { mode: answerMode })),
          onUser: (text, _i, cli, message) =>
            Effect.forEach(
              FakeCli.textTurn({ sessionId, text: `echo ${text}`, userMessageUuid: typeof message.uuid === "string" ? message.uuid : undefined }),
              (line) => cli.emit(line),
              { discard: true }
            )
        })(cli)
      })
    )
    return { modes, transport }
  }

  const entityOn = (transport: Layer.Layer<Transport>, options: ClaudeSessionEntity.Options = {}) =>
    ClaudeSessionEntity.layer(options).pipe(
      Layer.provideMerge(TestRunner.layer),
      Layer.provide(transport),
      Layer.provide(Layer.succeed(SessionStore.SessionStore, Effect.runSync(SessionStore.makeMemory)))
    )

  it.effect("a switch to bypassPermissions with no live CLI is refused unless the session was launched in that mode", () => {
    const { modes, transport } = modeCli("bypassPermissions")
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const refused = yield* Effect.exit((yield* ClaudeSessionEntity.client)(S1).SetPermissionMode({ mode: "bypassPermissions" }))
      assert.strictEqual(reasonOf(refused)?._tag, "ControlRejected")
      assert.include(reasonOf(refused)?.message ?? "", "launched in bypassPermissions")
      yield* (yield* ClaudeSessionEntity.client)(S1).Run({ uuid: uuid(1), prompt: "one" })
      assert.deepStrictEqual(modes, [undefined], "the next CLI is not launched in bypass")
    }).pipe(Effect.provide(entityOn(transport)))
  })

  it.effect("a session launched in bypassPermissions may switch back to it with no live CLI", () => {
    const { modes, transport } = modeCli("bypassPermissions")
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S2)
      yield* session.SetPermissionMode({ mode: "bypassPermissions" })
      yield* session.Run({ uuid: uuid(1), prompt: "one" })
      assert.deepStrictEqual(modes, ["bypassPermissions"])
    }).pipe(Effect.provide(entityOn(transport, { session: () => ({ permissionMode: "bypassPermissions" }) })))
  })

  it.effect("a session launched with --allow-dangerously-skip-permissions may switch to bypassPermissions with no live CLI", () => {
    const { modes, transport } = modeCli("bypassPermissions")
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S2)
      yield* session.SetPermissionMode({ mode: "bypassPermissions" })
      yield* session.Run({ uuid: uuid(1), prompt: "one" })
      assert.deepStrictEqual(modes, ["bypassPermissions"])
    }).pipe(Effect.provide(entityOn(transport, { session: () => ({ extraArgs: ["--allow-dangerously-skip-permissions"] }) })))
  })

  it.effect("the mode a live CLI says is in effect is the one kept for the next CLI", () => {
    const { modes, transport } = modeCli("acceptEdits")
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      yield* session.Run({ uuid: uuid(1), prompt: "one" })
      yield* session.SetPermissionMode({ mode: "plan" })
      yield* session.Close()
      yield* TestClock.adjust(1)
      yield* session.Run({ uuid: uuid(2), prompt: "two" })
      assert.deepStrictEqual(modes, [undefined, "acceptEdits"])
    }).pipe(Effect.provide(entityOn(transport)))
  })
})
