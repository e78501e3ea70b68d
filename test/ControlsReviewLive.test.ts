/**
 * On the real CLI 2.1.332: `setMcpServers` with a stdio server without `args` (optional in the
 * type, and at launch) failed to connect ("Spread syntax requires ...iterable not be null or
 * undefined"); it is sent with `args: []` and connects (found by a reviewing helper; failing
 * before). See `ControlsReview.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

const stdioServer = Path.join(import.meta.dirname, "fixtures", "stdio-mcp-server.mjs")

describe("setMcpServers (real CLI)", { timeout: 120_000 }, () => {
  it.live("a stdio server without args connects", () =>
    Effect.gen(function*() {
      const setup = yield* live([FakeModel.text("one")])
      // An executable that takes no argument: the server started by a script.
      const wrapper = Path.join(setup.cwd, "echo-server.sh")
      Fs.writeFileSync(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${stdioServer}" outside\n`, { mode: 0o755 })
      const session = yield* Claude.open(setup.options)
      yield* session.run("one")
      const set = yield* session.setMcpServers({ outside: { type: "stdio", command: wrapper } })
      assert.deepStrictEqual(set.errors, {})
      const status = yield* session.mcpStatus()
      assert.strictEqual(status.mcpServers.find((s) => s.name === "outside")?.status, "connected")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
