/**
 * A toolkit tool with `needsApproval`, served to a plain session (`McpServers.toolkit`): the
 * library never allows it ahead, so the CLI asks the session's `Permissions` for each call (with
 * none, it refuses them). In a mode that asks no one (`bypassPermissions`; `auto`, where a
 * classifier decides) it ran unasked: the session refuses such a mode, at launch, as a switch
 * (the typed method and the raw request), and a `setMcpServers` that would serve such a tool in
 * it, nothing sent. No settings file picks the mode for such a session (`default` is passed when
 * the program names none), nor may `extraArgs`. `ClaudeCodeLanguageModel` refuses it alike
 * (`test/LanguageModelApprovalBypass.test.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Toolkit from "effect/ai/Toolkit"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Launch from "../src/Launch.ts"
import * as McpServers from "../src/McpServers.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { Admin, AdminHandlers, ListRepos } from "./support/aiTools.ts"
import { answering, modeAnswer } from "./support/answeringCli.ts"

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): string => {
  if (Exit.isSuccess(exit)) return "success"
  return Option.match(Cause.findErrorOption(exit.cause), {
    onNone: () => assert.fail(`expected a typed failure, got ${Cause.pretty(exit.cause)}`),
    onSome: (error) => `${error.reason._tag}: ${"description" in error.reason ? error.reason.description : ""}`
  })
}

const adminServer = McpServers.layer(McpServers.toolkit("admin", Admin)).pipe(Layer.provide(AdminHandlers))
const SESSION = "11111111-1111-4111-8111-111111111111"
const listOnly = Toolkit.make(ListRepos)
const listHandlers = listOnly.toLayer({ ListRepos: () => Effect.succeed("a, b") })

describe("McpServers.toolkit: a tool that needs approval, in a mode that asks no one", () => {
  for (const mode of ["bypassPermissions", "auto"] as const satisfies ReadonlyArray<Launch.PermissionMode>) {
    it.effect(`${mode} at launch is InvalidInput naming the tool, no CLI started`, () =>
      Effect.gen(function*() {
        let spawned = false
        const transport = FakeCli.layer((cli) => {
          spawned = true
          return Effect.andThen(FakeCli.answerInitialize(cli), Effect.never)
        })
        const exit = yield* Claude.open({ permissionMode: mode }).pipe(
          Effect.scoped,
          Effect.provide(adminServer),
          Effect.provide(transport),
          Effect.exit
        )
        const reason = reasonOf(exit)
        assert.match(reason, /^InvalidInput/)
        assert.include(reason, "mcp__admin__DeleteRepo")
        assert.include(reason, mode)
        assert.isFalse(spawned)
      }))

    it.effect(`a switch to ${mode} is InvalidInput, nothing sent (the method and the raw request); plan still goes`, () =>
      Effect.gen(function*() {
        const received: Array<Record<string, unknown>> = []
        const [typed, raw, plan] = yield* Effect.gen(function*() {
          const session = yield* Claude.open({})
          const typed = yield* Effect.exit(session.setPermissionMode(mode))
          const raw = yield* Effect.exit(
            session.request({ subtype: "set_permission_mode", mode }, Schema.Struct({ mode: Schema.optional(Schema.String) }))
          )
          const plan = yield* Effect.exit(session.setPermissionMode("plan"))
          return [typed, raw, plan] as const
        }).pipe(Effect.scoped, Effect.provide(adminServer), Effect.provide(answering(received, modeAnswer)))
        for (const reason of [reasonOf(typed), reasonOf(raw)]) {
          assert.match(reason, /^InvalidInput/)
          assert.include(reason, "mcp__admin__DeleteRepo")
        }
        assert.strictEqual(reasonOf(plan), "success")
        assert.deepStrictEqual(received.map((r) => [r.subtype, r.mode]), [["set_permission_mode", "plan"]])
      }))
  }

  it.effect("setMcpServers with such a toolkit in a session launched in bypassPermissions is InvalidInput, nothing sent", () =>
    Effect.gen(function*() {
      const received: Array<Record<string, unknown>> = []
      const [admin, list] = yield* Effect.gen(function*() {
        const session = yield* Claude.open({ permissionMode: "bypassPermissions" })
        const admin = yield* Effect.exit(session.setMcpServers({}, { inProcess: [McpServers.toolkit("admin", Admin)] }))
        const list = yield* Effect.exit(session.setMcpServers({}, { inProcess: [McpServers.toolkit("list", listOnly)] }))
        return [admin, list] as const
      }).pipe(
        Effect.scoped,
        Effect.provide(AdminHandlers),
        Effect.provide(listHandlers),
        Effect.provide(answering(received, modeAnswer))
      )
      assert.match(reasonOf(admin), /^InvalidInput/)
      assert.include(reasonOf(admin), "mcp__admin__DeleteRepo")
      assert.strictEqual(reasonOf(list), "success")
      assert.deepStrictEqual(received.map((r) => r.subtype), ["mcp_set_servers"])
    }))

  it.effect("setMcpServers with such a toolkit after a switch to auto is InvalidInput", () =>
    Effect.gen(function*() {
      const received: Array<Record<string, unknown>> = []
      const admin = yield* Effect.gen(function*() {
        const session = yield* Claude.open({})
        yield* session.setPermissionMode("auto")
        return yield* Effect.exit(session.setMcpServers({}, { inProcess: [McpServers.toolkit("admin", Admin)] }))
      }).pipe(Effect.scoped, Effect.provide(AdminHandlers), Effect.provide(answering(received, modeAnswer)))
      assert.match(reasonOf(admin), /^InvalidInput/)
      assert.deepStrictEqual(received.map((r) => r.subtype), ["set_permission_mode"])
    }))

  it.effect("a toolkit without such a tool opens in bypassPermissions", () =>
    Effect.gen(function*() {
      const received: Array<Record<string, unknown>> = []
      const mode = yield* Effect.gen(function*() {
        yield* Claude.open({ permissionMode: "bypassPermissions" })
        return "opened"
      }).pipe(
        Effect.scoped,
        Effect.provide(McpServers.layer(McpServers.toolkit("list", listOnly)).pipe(Layer.provide(listHandlers))),
        Effect.provide(answering(received, modeAnswer))
      )
      assert.strictEqual(mode, "opened")
    }))

  it.effect("no mode named: the CLI gets --permission-mode default (no settings file picks one); extraArgs may not set one", () =>
    Effect.gen(function*() {
      const wiring: Launch.Wiring = {
        mcpServers: [{ name: "admin", alwaysLoad: false, needsApproval: ["DeleteRepo"] }],
        permissionPromptTool: false
      }
      const args = Launch.buildCommand({}, wiring).args
      const at = args.indexOf("--permission-mode")
      assert.strictEqual(args[at + 1], "default")
      const plain = Launch.buildCommand({}, { mcpServers: [{ name: "list", alwaysLoad: false }], permissionPromptTool: false })
      assert.notInclude(plain.args, "--permission-mode")
      for (const extraArgs of [["--dangerously-skip-permissions"], ["--permission-mode", "bypassPermissions"]]) {
        const exit = yield* Effect.exit(Launch.validate({ extraArgs }, wiring))
        assert.match(reasonOf(exit), /^InvalidInput/)
        assert.include(reasonOf(exit), "mcp__admin__DeleteRepo")
      }
    }))

  // No mode named, none that needs approval at launch: the CLI runs in its settings' mode, which it
  // reports in its `initialize` answer; a later switch is in effect from when it is sent.
  for (const [reported, expected] of [["auto", "refused"], ["bypassPermissions", "refused"], [undefined, "refused"], ["default", "served"]] as const) {
    it.effect(`setMcpServers with such a toolkit, the CLI reporting ${String(reported)} at start: ${expected}`, () =>
      Effect.gen(function*() {
        const received: Array<Record<string, unknown>> = []
        const exit = yield* Effect.gen(function*() {
          const session = yield* Claude.open({})
          return yield* Effect.exit(session.setMcpServers({}, { inProcess: [McpServers.toolkit("admin", Admin)] }))
        }).pipe(
          Effect.scoped,
          Effect.provide(AdminHandlers),
          Effect.provide(answering(received, modeAnswer, { initialize: { current_permission_mode: reported } }))
        )
        if (expected === "served") {
          assert.strictEqual(reasonOf(exit), "success")
          assert.deepStrictEqual(received.map((r) => r.subtype), ["mcp_set_servers"])
        } else {
          assert.match(reasonOf(exit), /^InvalidInput/)
          assert.include(reasonOf(exit), "mcp__admin__DeleteRepo")
          assert.deepStrictEqual(received, [])
        }
      }))
  }

  it.effect("a switch to auto whose answer never came (a timeout) counts: setMcpServers with such a toolkit is refused", () =>
    Effect.gen(function*() {
      const received: Array<Record<string, unknown>> = []
      const [switched, served] = yield* Effect.gen(function*() {
        const session = yield* Claude.open({})
        const switching = yield* Effect.forkChild(Effect.exit(session.setPermissionMode("auto", { timeout: "50 millis" })))
        yield* TestClock.adjust("1 second")
        const switched = yield* Fiber.join(switching)
        const served = yield* Effect.exit(session.setMcpServers({}, { inProcess: [McpServers.toolkit("admin", Admin)] }))
        return [switched, served] as const
      }).pipe(
        Effect.scoped,
        Effect.provide(AdminHandlers),
        // The switch is taken, its answer never written.
        Effect.provide(answering(received, (body) => body.subtype === "set_permission_mode" ? undefined : modeAnswer(body)))
      )
      assert.match(reasonOf(switched), /^ControlTimeout/)
      assert.match(reasonOf(served), /^InvalidInput/)
      assert.deepStrictEqual(received.map((r) => r.subtype), ["set_permission_mode"])
    }))

  it.effect("the CLI reporting auto in a system/status (a switch made elsewhere): setMcpServers with such a toolkit is refused", () =>
    Effect.gen(function*() {
      const received: Array<Record<string, unknown>> = []
      const exit = yield* Effect.gen(function*() {
        const session = yield* Claude.open({})
        yield* session.run("go")
        return yield* Effect.exit(session.setMcpServers({}, { inProcess: [McpServers.toolkit("admin", Admin)] }))
      }).pipe(
        Effect.scoped,
        Effect.provide(AdminHandlers),
        Effect.provide(answering(received, modeAnswer, {
          first: (cli) =>
            Effect.gen(function*() {
              const user = yield* cli.nextMatching((m) => m.type === "user")
              const lines = FakeCli.textTurn({ sessionId: SESSION, text: "ok", userMessageUuid: user.uuid as string })
              // Before the turn's result: the switch is reported while the turn runs.
              for (const line of lines.slice(0, -1)) yield* cli.emit(line)
              yield* cli.emit({ type: "system", subtype: "status", status: null, permissionMode: "auto", session_id: SESSION, uuid: "00000000-0000-4000-8000-000000000001" })
              yield* cli.emit(lines[lines.length - 1])
            })
        }))
      )
      assert.match(reasonOf(exit), /^InvalidInput/)
      assert.include(reasonOf(exit), "auto")
      assert.deepStrictEqual(received, [])
    }))

  it.effect("a setMcpServers refused by another check serves nothing: a later switch to auto goes out", () =>
    Effect.gen(function*() {
      const received: Array<Record<string, unknown>> = []
      const [served, switched] = yield* Effect.gen(function*() {
        const session = yield* Claude.open({})
        const served = yield* Effect.exit(
          session.setMcpServers({ broken: { type: "http", url: "nope" } }, { inProcess: [McpServers.toolkit("admin", Admin)] })
        )
        const switched = yield* Effect.exit(session.setPermissionMode("auto"))
        return [served, switched] as const
      }).pipe(Effect.scoped, Effect.provide(AdminHandlers), Effect.provide(answering(received, modeAnswer)))
      assert.match(reasonOf(served), /^InvalidInput/)
      assert.notInclude(reasonOf(served), "needsApproval")
      assert.strictEqual(reasonOf(switched), "success")
      assert.deepStrictEqual(received.map((r) => r.subtype), ["set_permission_mode"])
    }))
})
