/**
 * A handler's answer or defect that throws when it is read (a getter, as a proxy or a class with
 * computed fields has) still ends in the answer that fails closed, logged and reported: a
 * dialog `cancelled`, an elicitation `cancel`, a tool call denied, a guard's refusal. Before,
 * the throw escaped the fail-closed path (Schema's reading of the answer, or the logger's of the
 * defect): the handler's call died, the CLI got an error answer (a dialog stays pending on it,
 * and a CLI that does not honour `onFailure: "block"` reads it as "no opinion" from a guard)
 * and no `handler_failed` was reported. Found by a reviewing helper. The default logger is kept
 * on purpose: it is what reads the defect's `stack`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Elicitation from "../src/Elicitation.ts"
import * as Hooks from "../src/Hooks.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as UserDialogs from "../src/UserDialogs.ts"

interface Answered {
  readonly response: Record<string, unknown>
  /** The `handler_failed` events the session published. */
  readonly reported: ReadonlyArray<string>
}

/** A session whose fake CLI sends `request` (or calls `hook`) and hands back the answer. */
const ask = <E>(
  send: (cli: FakeCli.FakeCliHandle) => Effect.Effect<unknown, ClaudeError.ClaudeError>,
  services: Layer.Layer<never, E>
) =>
  Effect.gen(function*() {
    const done = yield* Deferred.make<Exit.Exit<unknown, ClaudeError.ClaudeError>>()
    const cli = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        yield* Deferred.succeed(done, yield* Effect.exit(send(cli)))
        return yield* Effect.never
      })
    )
    return yield* Effect.gen(function*() {
      const session = yield* Claude.open()
      const reported: Array<string> = []
      yield* session.events.pipe(
        Stream.runForEach((event) => Effect.sync(() => event.type === "handler_failed" && reported.push(event.failure))),
        Effect.forkScoped({ startImmediately: true })
      )
      const exit = yield* Deferred.await(done)
      if (Exit.isFailure(exit)) return assert.fail(`no answer: ${String(exit.cause)}`)
      yield* Effect.yieldNow
      return { response: exit.value as Record<string, unknown>, reported } satisfies Answered
    }).pipe(Effect.scoped, Effect.provide(cli), Effect.provide(services))
  })

/** A copy of `base` whose `key` throws when read. */
const throwingAt = <A extends object>(base: A, key: string): A =>
  Object.defineProperty({ ...base }, key, {
    enumerable: true,
    get() {
      throw new Error(`reading ${key} failed`)
    }
  })

/** An `Error` (its prototype kept) whose `stack` throws when read. */
const errorWithUnreadableStack = (): Error =>
  Object.defineProperty(new Error("policy bug"), "stack", {
    get() {
      throw new Error("reading stack failed")
    }
  })

const success = (response: Record<string, unknown>) => {
  assert.strictEqual(response.subtype, "success", `the CLI got ${JSON.stringify(response)}`)
  return response.response as Record<string, unknown>
}

describe("an answer or defect that cannot be read still fails closed", () => {
  it.effect("UserDialogs: an answer whose result cannot be read is answered cancelled, and reported", () =>
    Effect.gen(function*() {
      const answered = yield* ask(
        (cli) =>
          cli.request({
            subtype: "request_user_dialog",
            dialog_kind: "refusal_fallback_prompt",
            payload: { model: "claude-fallback" },
            tool_use_id: "toolu_1"
          }),
        UserDialogs.layer(
          ["refusal_fallback_prompt"],
          () => Effect.succeed(throwingAt({ behavior: "completed" } as UserDialogs.UserDialogResult, "result"))
        )
      )
      assert.deepStrictEqual(success(answered.response), { behavior: "cancelled" })
      assert.deepStrictEqual(answered.reported, ["invalid_answer"])
    }))

  it.effect("Elicitation: an accept whose content cannot be read is answered cancel, and reported", () =>
    Effect.gen(function*() {
      const answered = yield* ask(
        (cli) =>
          cli.request({
            subtype: "elicitation",
            mcp_server_name: "deploy",
            message: "Where?",
            mode: "form",
            requested_schema: { type: "object", properties: { environment: { type: "string" } } }
          }),
        Elicitation.layer(() => Effect.succeed(throwingAt({ action: "accept" } as Elicitation.ElicitationResult, "content")))
      )
      assert.deepStrictEqual(success(answered.response), { action: "cancel" })
      assert.deepStrictEqual(answered.reported, ["invalid_answer"])
    }))

  it.effect("Permissions: a handler that dies with an error whose stack cannot be read is denied, and reported", () =>
    Effect.gen(function*() {
      const answered = yield* ask(
        (cli) => FakeCli.askPermission(cli, "Bash", { command: "ls" }),
        Permissions.layer(() => Effect.die(errorWithUnreadableStack()))
      )
      assert.strictEqual(answered.response.behavior, "deny", JSON.stringify(answered.response))
      assert.deepStrictEqual(answered.reported, ["died"])
    }))

  it.effect("Hooks: a guard that dies with an error whose stack cannot be read refuses the tool call, and is reported", () =>
    Effect.gen(function*() {
      const answered = yield* ask(
        (cli) => FakeCli.callHook(cli, "PreToolUse", { tool_name: "Bash", tool_input: { command: "rm -rf /" } }),
        Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash" }, () => Effect.die(errorWithUnreadableStack())))
      )
      const output = answered.response.hookSpecificOutput as { readonly permissionDecision?: unknown } | undefined
      assert.strictEqual(output?.permissionDecision, "deny", JSON.stringify(answered.response))
      assert.deepStrictEqual(answered.reported, ["died"])
    }))
})
