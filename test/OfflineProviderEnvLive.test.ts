/**
 * `Offline` (and `FakeModel.cliEnvironment`) must point the CLI at the fake model whatever the
 * developer's shell holds: the CLI 2.1.332 has seven provider switches (`CLAUDE_CODE_USE_*`) and
 * `ANTHROPIC_UNIX_SOCKET`, each of which sends its requests elsewhere; all are removed. A proxy
 * (`HTTPS_PROXY`) is not asked for the fake on 127.0.0.1 (`NO_PROXY`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

/** The provider variables of the inherited environment while `effect` runs. */
const withHostEnv = <A, E, R>(vars: Readonly<Record<string, string>>, effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]))
      Object.assign(process.env, vars)
      return saved
    }),
    () => effect,
    (saved) =>
      Effect.sync(() => {
        for (const [name, value] of Object.entries(saved)) {
          if (value === undefined) delete process.env[name]
          else process.env[name] = value
        }
      })
  )

describe("Offline in a shell set up for another provider or a proxy", () => {
  for (
    const vars of [
      { CLAUDE_CODE_USE_FOUNDRY: "1", ANTHROPIC_FOUNDRY_RESOURCE: "my-resource" },
      { ANTHROPIC_UNIX_SOCKET: "/nonexistent/anthropic.sock" },
      // A proxy the fake on loopback is out of reach of (here: none listening at all).
      { HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9", NO_PROXY: "" },
      { https_proxy: "http://127.0.0.1:9", http_proxy: "http://127.0.0.1:9", no_proxy: "" }
    ]
  ) {
    it.live(`${Object.keys(vars)[0]} in the inherited environment: the fake model still answers`, () =>
      withHostEnv(
        vars,
        Effect.gen(function*() {
          const { model, session } = yield* Offline.open([FakeModel.text("From the fake model.")], {
            executable: cliPath
          })
          const result = yield* session.run("Say hello")
          assert.strictEqual(result.result, "From the fake model.")
          assert.strictEqual((yield* model.messageRequests).length, 1)
        }).pipe(Effect.scoped, Effect.provide(processLayer), Effect.timeout("30 seconds"))
      ), 60_000)
  }

  it("cliEnvironment removes every provider switch of the CLI and keeps the fake out of any proxy", () => {
    const env = FakeModel.cliEnvironment("http://127.0.0.1:1", "/home")
    for (
      const name of [
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
        "CLAUDE_CODE_USE_FOUNDRY",
        "CLAUDE_CODE_USE_ANTHROPIC_AWS",
        "CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD",
        "CLAUDE_CODE_USE_MANTLE",
        "CLAUDE_CODE_USE_GATEWAY",
        "ANTHROPIC_UNIX_SOCKET"
      ]
    ) {
      assert.isTrue(Object.hasOwn(env, name), name)
      assert.isUndefined(env[name], name)
    }
    assert.strictEqual(env.NO_PROXY, "127.0.0.1,localhost,::1")
    assert.strictEqual(env.no_proxy, "127.0.0.1,localhost,::1")
  })
})
