/**
 * The hook events issue 15 typed that CLI 2.1.332 fires offline, through the library's own
 * `Hooks` (hook_callback): each handler gets its input decoded by the event's schema, and its
 * answer has the CLI's effect. `PreModelSwitch` (a deny keeps the model), `PostModelSwitch` (its
 * context reaches the next request), `MessageDisplay` (the delta of the text shown) and
 * `ConfigChange` (a project settings file written while the session runs). The other new events
 * are not fired offline by this CLI (test/HookEvents.test.ts checks them on inputs written after
 * sdk.d.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import type * as HookEvents from "../src/HookEvents.ts"
import * as Hooks from "../src/Hooks.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"
import { makeTempDir } from "./support/tempDir.ts"

const requestText = (request: FakeModel.RecordedRequest): string => JSON.stringify(request.messages)

describe("hook events, real CLI", () => {
  it.live("PreModelSwitch: a deny keeps the model; PostModelSwitch: its context reaches the next request", () =>
    Effect.gen(function*() {
      const pre: Array<HookEvents.PreModelSwitchInput> = []
      const post: Array<HookEvents.PostModelSwitchInput> = []
      let allow = false
      const hooks = Hooks.layer(
        Hooks.on("PreModelSwitch", (input) =>
          Effect.sync(() => {
            pre.push(input)
            return allow ? {} : {
              hookSpecificOutput: { permissionDecision: "deny" as const, permissionDecisionReason: "stay put" }
            }
          })),
        Hooks.on("PostModelSwitch", (input) =>
          Effect.sync(() => {
            post.push(input)
            return Hooks.addContext("PostModelSwitch", "The model is now Sonnet.")
          }))
      )
      yield* Effect.scoped(Effect.gen(function*() {
        const offline = yield* Offline.open([FakeModel.text("one"), FakeModel.text("two"), FakeModel.text("three")], {
          executable: cliPath
        })
        yield* offline.session.run("first")
        yield* offline.session.setModel("sonnet").pipe(Effect.ignore)
        yield* offline.session.run("second")
        assert.strictEqual(pre.length, 1)
        assert.strictEqual(pre[0]!.requested_model, "sonnet")
        assert.strictEqual(pre[0]!.source, "sdk")
        assert.strictEqual(post.length, 0)
        const requests = yield* offline.model.messageRequests
        const [first, second] = requests.filter((r) => r.endpoint === "messages" && r.stream)
        assert.strictEqual(second!.model, first!.model)

        allow = true
        yield* offline.session.setModel("sonnet")
        yield* offline.session.run("third")
        assert.strictEqual(pre.length, 2)
        assert.strictEqual(post.length, 1)
        assert.strictEqual(post[0]!.to_model, pre[1]!.to_model)
        assert.notStrictEqual(post[0]!.to_model, post[0]!.from_model)
        const last = (yield* offline.model.messageRequests).filter((r) => r.endpoint === "messages" && r.stream).at(-1)!
        assert.strictEqual(last.model, post[0]!.to_model)
        assert.include(requestText(last), "The model is now Sonnet.")
      })).pipe(Effect.provide(hooks))
    }).pipe(Effect.provide(processLayer)), 90_000)

  it.live("MessageDisplay gets the text shown; ConfigChange a project settings file written mid-session", () =>
    Effect.gen(function*() {
      const shown: Array<HookEvents.MessageDisplayInput> = []
      const changes: Array<HookEvents.ConfigChangeInput> = []
      const hooks = Hooks.layer(
        Hooks.on("MessageDisplay", (input) => Effect.sync(() => (shown.push(input), {}))),
        Hooks.on("ConfigChange", (input) => Effect.sync(() => (changes.push(input), {})))
      )
      yield* Effect.scoped(Effect.gen(function*() {
        const cwd = yield* makeTempDir("hook-events-")
        const settings = Path.join(cwd, ".claude", "settings.json")
        Fs.mkdirSync(Path.dirname(settings))
        Fs.writeFileSync(settings, "{}\n")
        const offline = yield* Offline.open([FakeModel.text("Shown text."), FakeModel.text("Again.")], {
          executable: cliPath,
          cwd,
          settingSources: ["project"]
        })
        yield* offline.session.run("first")
        assert.deepStrictEqual(shown.map((s) => [s.delta, s.final, s.index]), [["Shown text.", true, 0]])
        Fs.writeFileSync(settings, JSON.stringify({ env: { HOOK_EVENTS_TEST: "1" } }) + "\n")
        // The CLI notices the file on its own; the next turn gives it the time.
        for (let i = 0; i < 20 && changes.length === 0; i++) yield* Effect.sleep("250 millis")
        yield* offline.session.run("second")
        assert.strictEqual(changes[0]?.source, "project_settings")
        assert.strictEqual(changes[0]?.file_path !== undefined && Fs.realpathSync(changes[0].file_path), Fs.realpathSync(settings))
      })).pipe(Effect.provide(hooks))
    }).pipe(Effect.provide(processLayer)), 90_000)
})
