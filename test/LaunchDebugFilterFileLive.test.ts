/**
 * `debug` as a category filter with `debugFile`: the filter was dropped (only `--debug-file`
 * went to the CLI), so the file got the CLI's whole debug log, every category, where the program
 * asked for some (found by a review: CLI 2.1.332 given `--debug=hooks --debug-file f` writes the
 * hooks lines alone, a couple of lines against about two hundred). Both flags go now.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Launch from "../src/Launch.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath, makeTempDir } from "./support/realCli.ts"

const argsOf = (options: Launch.LaunchOptions) => Launch.buildCommand(options, { mcpServers: [], permissionPromptTool: false }).args

describe("debug's category filter with debugFile", { timeout: 120_000 }, () => {
  it("both go to the CLI; debug true or false adds nothing to --debug-file", () => {
    const args = argsOf({ debug: "hooks", debugFile: "logs/d.txt" })
    assert.include(args, "--debug=hooks")
    assert.include(args, "logs/d.txt")
    for (const debug of [true, false, undefined]) {
      const plain = argsOf({ debug, debugFile: "logs/d.txt" })
      assert.isFalse(plain.some((arg) => arg.startsWith("--debug") && arg !== "--debug-file"), String(debug))
    }
  })

  it.live("real CLI: the file holds the filter's category alone", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-debug-filter-")
      const file = Path.join(dir, "debug.txt")
      const offline = yield* Offline.open([FakeModel.text("ok")], { executable: cliPath, debug: "hooks", debugFile: file })
      yield* offline.session.run("hi")
      const lines = Fs.readFileSync(file, "utf8").split("\n").filter((line) => line.includes("[DEBUG]"))
      assert.isAbove(lines.length, 0)
      for (const line of lines) assert.match(line, /\[DEBUG\] Hooks?\b/i, line)
    })).pipe(Effect.provide(processLayer)))
})
