/**
 * `apiKey` is the session's credential; an `ANTHROPIC_AUTH_TOKEN` in the host's environment (the
 * program's own, for another use) went along with it: CLI 2.1.332 sends both, `x-api-key` and
 * `Authorization: Bearer <the host's token>`, so a program that pointed the session at another
 * endpoint with its own key handed that endpoint the host's token too (found by a review). With
 * `apiKey`, the CLI inherits neither `ANTHROPIC_AUTH_TOKEN` nor `CLAUDE_CODE_OAUTH_TOKEN`; the
 * session's own `env` may still set them.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Claude from "../src/Claude.ts"
import * as Launch from "../src/Launch.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { withEnv } from "./support/env.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"
import { makeTempDir } from "./support/tempDir.ts"

/** The credential headers of the model requests of one turn, `options` given over the fake's environment. */
const credentialsSent = (options: Claude.SessionOptions) =>
  Effect.gen(function*() {
    const model = yield* FakeModel.make([FakeModel.text("ok")])
    const home = yield* makeTempDir("apikey-home-")
    // The fake's environment, but the host's token left to the CLI, and no key but the session's.
    const { ANTHROPIC_AUTH_TOKEN: _token, ANTHROPIC_API_KEY: _key, ...env } = model.cliEnvironment(home)
    const session = yield* Claude.open({ executable: cliPath, cwd: home, ...options, env: { ...env, ...options.env } })
    yield* session.run("hi")
    return (yield* model.messageRequests).map((request) => ({
      key: request.headers["x-api-key"],
      bearer: request.headers.authorization
    }))
  })

const noWiring: Launch.Wiring = { mcpServers: [], permissionPromptTool: false }

describe("apiKey and a host's ANTHROPIC_AUTH_TOKEN", { timeout: 60_000 }, () => {
  it("with apiKey the CLI's environment drops the host's tokens, unless the session's env sets them", () => {
    const env = Launch.buildCommand({ apiKey: Redacted.make("k") }, noWiring).env
    for (const name of ["ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"]) {
      assert.isTrue(Object.hasOwn(env, name) && env[name] === undefined, name)
    }
    assert.isFalse(Object.hasOwn(Launch.buildCommand({}, noWiring).env, "ANTHROPIC_AUTH_TOKEN"))
    const own = Launch.buildCommand({ apiKey: Redacted.make("k"), env: { ANTHROPIC_AUTH_TOKEN: "t" } }, noWiring).env
    assert.isDefined(own.ANTHROPIC_AUTH_TOKEN)
  })

  it.live("the session's apiKey alone reaches the model; the host's token does not", () =>
    Effect.scoped(Effect.gen(function*() {
      yield* withEnv("ANTHROPIC_AUTH_TOKEN", "host-token-0123456789")
      const sent = yield* credentialsSent({ apiKey: Redacted.make("program-key-0123456789") })
      assert.deepStrictEqual(sent, [{ key: "program-key-0123456789", bearer: undefined }])
    })).pipe(Effect.provide(processLayer)))

  it.live("without apiKey the host's token is the credential, as before", () =>
    Effect.scoped(Effect.gen(function*() {
      yield* withEnv("ANTHROPIC_AUTH_TOKEN", "host-token-0123456789")
      const sent = yield* credentialsSent({})
      assert.deepStrictEqual(sent, [{ key: undefined, bearer: "Bearer host-token-0123456789" }])
    })).pipe(Effect.provide(processLayer)))
})
