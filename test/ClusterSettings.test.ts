/**
 * The cluster entity keeps a model or permission mode for the next CLIs only once the live CLI
 * accepted it. Before, a refused one was recorded first, and the next CLI (after an idle close,
 * `Close` or a runner change) was launched with it, a refused `bypassPermissions` included (found
 * by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as SessionStore from "../src/SessionStore.ts"
import { Admin, AdminHandlers } from "./support/aiTools.ts"
import { entityOn, S1, uuid } from "./support/clusterEntity.ts"

/**
 * A fake CLI that refuses the model "no-such-model" and the mode bypassPermissions, and answers a
 * set_permission_mode with `inEffect` as the mode now in effect when given; records each launch's
 * model and mode.
 */
const settingsCli = (inEffect?: string) => {
    const spawns: Array<string | undefined> = []
    const modes: Array<string | undefined> = []
    const transport = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        const args = cli.spec.args
        const resume = args.find((a) => a.startsWith("--resume="))
        const sessionId = resume !== undefined ? resume.slice("--resume=".length) : args[args.indexOf("--session-id") + 1]!
        const modelArg = args.find((a) => a.startsWith("--model"))
        modes.push(args.includes("--permission-mode") ? args[args.indexOf("--permission-mode") + 1] : args.find((a) => a.startsWith("--permission-mode=")))
        spawns.push(
          modelArg === undefined ? undefined : modelArg.includes("=") ? modelArg.split("=")[1] : args[args.indexOf(modelArg) + 1]
        )
        return yield* FakeCli.conversation({
          sessionId,
          onControl: (request, cli) => {
            const body = request.request as Record<string, unknown>
            if (body.subtype === "set_permission_mode" && body.mode === "bypassPermissions") {
              return cli.emit(FakeCli.failure(request, "bypassPermissions is not allowed"))
            }
            if (body.subtype === "set_model" && body.model === "no-such-model") {
              return cli.emit(FakeCli.failure(request, "model no-such-model not found"))
            }
            return cli.emit(FakeCli.success(
              request,
              body.subtype === "set_model"
                ? { model: body.model }
                : body.subtype === "set_permission_mode" && inEffect !== undefined
                ? { mode: inEffect }
                : {}
            ))
          },
          onUser: (text, _i, cli, message) =>
            Effect.forEach(
              FakeCli.textTurn({ sessionId, text: `echo ${text}`, userMessageUuid: typeof message.uuid === "string" ? message.uuid : undefined }),
              (line) => cli.emit(line),
              { discard: true }
            )
        })(cli)
      })
    )
  return { spawns, modes, transport }
}

describe("a refused setting", () => {
  it.effect("a SetModel or SetPermissionMode the CLI refuses is not the setting of the next CLI", () => {
    const { spawns, modes, transport } = settingsCli()
    const layer = entityOn(transport, Effect.runSync(SessionStore.makeMemory))
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      yield* session.Run({ uuid: uuid(1), prompt: "one" })
      const refused = yield* Effect.exit(session.SetModel({ model: "no-such-model" }))
      assert.isTrue(Exit.isFailure(refused), "the CLI refused the model")
      yield* session.Close()
      yield* TestClock.adjust(1)
      yield* session.Run({ uuid: uuid(2), prompt: "two" })
      const refusedMode = yield* Effect.exit(session.SetPermissionMode({ mode: "bypassPermissions" }))
      assert.isTrue(Exit.isFailure(refusedMode), "the CLI refused the mode")
      yield* session.Close()
      yield* TestClock.adjust(1)
      yield* session.Run({ uuid: uuid(3), prompt: "three" })
      // The refused mode must not be passed to the next CLI.
      assert.deepStrictEqual(modes, [undefined, undefined, undefined], "permission modes")
      // The refused model must not be passed to the next CLI.
      assert.deepStrictEqual(spawns, [undefined, undefined, undefined], "models")
    }).pipe(Effect.provide(layer))
  })
  it.effect("an accepted mode is the next CLI's; one the ledger could not keep is taken back and the CLI reopened without it", () => {
    const { modes, transport } = settingsCli()
    const memory = Effect.runSync(SessionStore.makeMemory)
    // The ledger refuses to keep the mode plan: after the CLI accepted it.
    const store = SessionStore.SessionStore.of({
      ...memory,
      append: (key, entries) =>
        entries.some((entry) => entry.type === "settings" && entry.permissionMode === "plan")
          ? Effect.fail(ClaudeError.make(new ClaudeError.StoreFailed({ store: "test", operation: "append", description: "down" })))
          : memory.append(key, entries)
    })
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      yield* session.Run({ uuid: uuid(1), prompt: "one" })
      yield* session.SetPermissionMode({ mode: "acceptEdits" })
      yield* session.Close()
      yield* TestClock.adjust(1)
      yield* session.Run({ uuid: uuid(2), prompt: "two" })
      const unkept = yield* Effect.exit(session.SetPermissionMode({ mode: "plan" }))
      assert.isTrue(Exit.isFailure(unkept), "the ledger did not keep it")
      // The next turn runs on a CLI reopened with the kept mode, not the one the caller heard fail.
      yield* session.Run({ uuid: uuid(3), prompt: "three" })
      assert.deepStrictEqual(modes, [undefined, "acceptEdits", "acceptEdits"])
    }).pipe(Effect.provide(entityOn(transport, store)))
  })
})

describe("the entity's permission mode (found by an audit)", () => {
  const reasonOf = <A, E>(exit: Exit.Exit<A, E>) => {
    if (Exit.isSuccess(exit)) return undefined
    const fail = exit.cause.reasons.find((r) => r._tag === "Fail")
    return fail?._tag === "Fail" && ClaudeError.isClaudeError(fail.error) ? fail.error.reason : undefined
  }

  // The next CLI was launched in it, where a live CLI refuses that switch.
  it.effect("a switch to bypassPermissions with no live CLI is refused unless the session was launched to allow it", () => {
    const { modes, transport } = settingsCli()
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      const refused = yield* Effect.exit(session.SetPermissionMode({ mode: "bypassPermissions" }))
      assert.strictEqual(reasonOf(refused)?._tag, "ControlRejected")
      assert.include(reasonOf(refused)?.message ?? "", "launched in bypassPermissions")
      yield* session.Run({ uuid: uuid(1), prompt: "one" })
      assert.deepStrictEqual(modes, [undefined], "the next CLI is not launched in bypass")
    }).pipe(Effect.provide(entityOn(transport)))
  })

  // With a live CLI the switch is refused (a tool that needs approval is served); without one it was
  // kept, and every later turn's CLI refused to launch in it (InvalidInput): a success that failed
  // every turn after it.
  for (const mode of ["auto", "bypassPermissions"] as const) {
    it.effect(`a switch to ${mode} with no live CLI, a tool that needs approval served, is refused; turns go on`, () => {
      const { modes, transport } = settingsCli()
      return Effect.gen(function*() {
        yield* TestClock.adjust(1)
        const session = (yield* ClaudeSessionEntity.client)(S1)
        const refused = yield* Effect.exit(session.SetPermissionMode({ mode }))
        assert.strictEqual(reasonOf(refused)?._tag, "InvalidInput")
        assert.include(reasonOf(refused)?.message ?? "", "mcp__admin__DeleteRepo")
        yield* session.Run({ uuid: uuid(1), prompt: "one" })
        assert.deepStrictEqual(modes, ["default"], "the next CLI is launched to ask")
      }).pipe(Effect.provide(
        entityOn(transport, undefined, { session: () => ({ extraArgs: ["--allow-dangerously-skip-permissions"] }) }).pipe(
          Layer.provide(McpServers.layer(McpServers.toolkit("admin", Admin)).pipe(Layer.provide(AdminHandlers)))
        )
      ))
    })
  }

  it.effect("a switch to bypassPermissions with no live CLI, a Permissions layer in the context, is refused; turns go on", () => {
    const { modes, transport } = settingsCli()
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      const refused = yield* Effect.exit(session.SetPermissionMode({ mode: "bypassPermissions" }))
      assert.strictEqual(reasonOf(refused)?._tag, "InvalidInput")
      assert.include(reasonOf(refused)?.message ?? "", "Permissions layer")
      yield* session.Run({ uuid: uuid(1), prompt: "one" })
      assert.deepStrictEqual(modes, ["default"], "the next CLI is launched to ask the layer")
    }).pipe(Effect.provide(
      entityOn(transport, undefined, { session: () => ({ extraArgs: ["--allow-dangerously-skip-permissions"] }) }).pipe(
        Layer.provide(Permissions.layer(() => Effect.succeed(Permissions.allow())))
      )
    ))
  })

  for (
    const [launched, options] of [
      ["in bypassPermissions", { permissionMode: "bypassPermissions" }],
      ["with --allow-dangerously-skip-permissions", { extraArgs: ["--allow-dangerously-skip-permissions"] }]
    ] as const
  ) {
    it.effect(`a session launched ${launched} may switch to bypassPermissions with no live CLI`, () => {
      const { modes, transport } = settingsCli()
      return Effect.gen(function*() {
        yield* TestClock.adjust(1)
        const session = (yield* ClaudeSessionEntity.client)(S1)
        yield* session.SetPermissionMode({ mode: "bypassPermissions" })
        yield* session.Run({ uuid: uuid(1), prompt: "one" })
        assert.deepStrictEqual(modes, ["bypassPermissions"])
      }).pipe(Effect.provide(entityOn(transport, undefined, { session: () => options })))
    })
  }

  // setPermissionMode returned nothing, and the entity kept the mode asked for.
  it.effect("the mode a live CLI says is in effect is the one kept for the next CLI", () => {
    const { modes, transport } = settingsCli("acceptEdits")
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
