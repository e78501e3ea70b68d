/**
 * `Offline`: a session against the real CLI (the pinned devDependency) and a fake model, in a
 * fresh HOME and cwd, in one line; and `FakeModel`'s `models` option, which makes an unknown
 * model fail as the API does.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as ClaudeSession from "../src/ClaudeSession.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

const isRoot = typeof process.getuid === "function" && process.getuid() === 0

/** True when something listens on this port of 127.0.0.1. */
const listening = (port: number) =>
  Effect.promise(() =>
    fetch(`http://127.0.0.1:${port}/v1/messages/count_tokens`, { method: "POST", body: "{}" }).then(
      () => true,
      () => false
    )
  )

describe("Offline", () => {
  it.live("open: one line gives a session on the fake model; closing the scope stops it and removes HOME and cwd", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const offline = yield* Offline.open([FakeModel.text("Hello from the fake model.")], { executable: cliPath }).pipe(
        Scope.provide(scope)
      )
      const result = yield* offline.session.run("Say hello")
      assert.strictEqual(result.result, "Hello from the fake model.")
      const [request] = yield* offline.model.messageRequests
      assert.strictEqual(request?.headers["x-api-key"], "sk-test")
      assert.isTrue(Fs.existsSync(offline.home) && Fs.existsSync(offline.cwd))
      assert.strictEqual(offline.options.cwd, offline.cwd)
      const env = offline.options.env ?? {}
      assert.strictEqual(env.HOME, offline.home)
      assert.strictEqual(env.ANTHROPIC_BASE_URL, offline.model.url)
      assert.strictEqual(env.DISABLE_TELEMETRY, "1")
      assert.isTrue("CLAUDECODE" in env && env.CLAUDECODE === undefined)
      // No bypassPermissions asked for: no IS_SANDBOX, as the program would run.
      assert.isUndefined(env.IS_SANDBOX)
      assert.isTrue(yield* listening(offline.model.port))

      yield* Scope.close(scope, Exit.void)
      assert.isFalse(Fs.existsSync(offline.home))
      assert.isFalse(Fs.existsSync(offline.cwd))
      assert.isFalse(yield* listening(offline.model.port))
    }).pipe(Effect.provide(processLayer)))

  it.effect("make: IS_SANDBOX=1 only as root with bypassPermissions; a given cwd is kept; env wins", () =>
    Effect.gen(function*() {
      const bypass = yield* Offline.make([], { permissionMode: "bypassPermissions" })
      assert.strictEqual(bypass.options.env?.IS_SANDBOX, isRoot ? "1" : undefined)
      const asked = yield* Offline.make([], { permissionMode: "default", env: { IS_SANDBOX: "1", EXTRA: "x" } })
      assert.strictEqual(asked.options.env?.IS_SANDBOX, "1")
      assert.strictEqual(asked.options.env?.EXTRA, "x")
      const retries = yield* Offline.make([], { maxRetries: 3 })
      assert.strictEqual(retries.options.env?.CLAUDE_CODE_MAX_RETRIES, "3")
      const own = yield* Offline.make([], { cwd: bypass.cwd })
      assert.strictEqual(own.cwd, bypass.cwd)
      assert.strictEqual(own.options.cwd, bypass.cwd)
    }))

  it.effect("a failing test still removes the directories and stops the fake model", () =>
    Effect.gen(function*() {
      let seen: Offline.Setup | undefined
      const exit = yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
        seen = yield* Offline.make([FakeModel.text("unused")])
        return yield* Effect.fail("the test failed")
      })))
      assert.isTrue(Exit.isFailure(exit))
      assert.isDefined(seen)
      assert.isFalse(Fs.existsSync(seen!.home))
      assert.isFalse(Fs.existsSync(seen!.cwd))
      assert.isFalse(yield* listening(seen!.model.port))
    }))

  it.live("layer: ClaudeSession and the FakeModel it talks to", () =>
    Effect.gen(function*() {
      const session = yield* ClaudeSession.ClaudeSession
      const model = yield* FakeModel.FakeModel
      const result = yield* session.run("Say hello")
      assert.strictEqual(result.result, "From a layer.")
      assert.strictEqual((yield* model.messageRequests).length >= 1, true)
    }).pipe(
      Effect.provide(Offline.layer([FakeModel.text("From a layer.")], { executable: cliPath })),
      Effect.provide(processLayer)
    ))
})

describe("FakeModel models: an unknown model fails as the API does", () => {
  it.live("the real CLI asking for an unknown model: the turn fails with ApiError 404 not_found_error", () =>
    Effect.gen(function*() {
      const { session, model } = yield* Offline.open([FakeModel.text("never sent")], {
        executable: cliPath,
        model: "claude-sonnet-9-9",
        fakeModel: { models: FakeModel.knownModels }
      })
      const exit = yield* Effect.exit(session.run("Say hello"))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : Option.none()
      assert.isTrue(Option.isSome(error))
      const reason = Option.getOrThrow(error).reason
      assert.strictEqual(reason._tag, "ApiError")
      if (reason._tag !== "ApiError") return
      assert.strictEqual(reason.status, 404)
      assert.include(reason.description, "claude-sonnet-9-9")
      const requests = yield* model.messageRequests
      assert.isTrue(requests.length >= 1)
      assert.isTrue(requests.every((r) => r.model === "claude-sonnet-9-9"))
    }).pipe(Effect.provide(processLayer)))

  it.live("the same program with a known alias runs", () =>
    Effect.gen(function*() {
      const { session } = yield* Offline.open([FakeModel.text("Hi from sonnet.")], {
        executable: cliPath,
        model: "sonnet",
        fakeModel: { models: FakeModel.knownModels }
      })
      const result = yield* session.run("Say hello")
      assert.strictEqual(result.result, "Hi from sonnet.")
    }).pipe(Effect.provide(processLayer)))
})
