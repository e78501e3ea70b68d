/**
 * A host's `DEBUG` (or `DEBUG_SDK`), set for its own logging, is not the CLI's: CLI 2.1.332 turns
 * its debug log on for either, and wrote one under HOME's `.claude/debug` for every session of a
 * program that never set the `debug` option. The official SDK removes `DEBUG` likewise. A session
 * whose own `env` names either still gets it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Launch from "../src/Launch.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { withEnv } from "./support/env.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

/** The debug logs the CLI of an offline session wrote under its HOME. */
const debugLogs = (offline: Offline.Setup): ReadonlyArray<string> => {
  const dir = Path.join(offline.home, ".claude", "debug")
  return Fs.existsSync(dir) ? Fs.readdirSync(dir).filter((name) => name.endsWith(".txt")) : []
}

describe("a host's DEBUG does not turn the CLI's debug log on", () => {
  it("buildCommand removes DEBUG, DEBUG_SDK and NODE_OPTIONS unless the session's env sets them", () => {
    const noWiring: Launch.Wiring = { mcpServers: [], permissionPromptTool: false }
    const env = Launch.buildCommand({}, noWiring).env
    // NODE_OPTIONS too: the host's Node options (an `--inspect` port, a `--require` of its agent)
    // are not a CLI's that runs on Node (2.1.0); the official SDK removes it as well.
    for (const name of ["DEBUG", "DEBUG_SDK", "NODE_OPTIONS"]) {
      assert.isTrue(Object.hasOwn(env, name), name)
      assert.strictEqual(env[name], undefined, name)
    }
    assert.strictEqual(Launch.buildCommand({ env: { DEBUG: "1" } }, noWiring).env.DEBUG, "1")
    assert.strictEqual(Launch.buildCommand({ env: { NODE_OPTIONS: "--no-warnings" } }, noWiring).env.NODE_OPTIONS, "--no-warnings")
  })

  for (const name of ["DEBUG", "DEBUG_SDK"]) {
    it.live(`the host's ${name}=1: no debug log; the session's own env ${name}=1: a debug log`, () =>
      Effect.scoped(Effect.gen(function*() {
        yield* withEnv(name, "1")
        const inherited = yield* Offline.open([FakeModel.text("ok")], { executable: cliPath })
        yield* inherited.session.run("hi")
        assert.deepStrictEqual(debugLogs(inherited), [], "the CLI wrote a debug log the program never asked for")
        const asked = yield* Offline.open([FakeModel.text("ok")], { executable: cliPath, env: { [name]: "1" } })
        yield* asked.session.run("hi")
        assert.lengthOf(debugLogs(asked), 1)
      })).pipe(Effect.provide(processLayer)), 60_000)
  }
})
