/**
 * A CLI that dies mid-turn while a process it started still holds its stdout open (a wrapper's
 * background helper, a tool started with the CLI's stdio): the turn fails at once with the CLI's
 * exit, as for any CLI that dies, instead of waiting for that process to close the pipe.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Claude from "../src/Claude.ts"
import { reasonOf } from "./support/outcomes.ts"
import { makeTempDir } from "./support/tempDir.ts"

/** A CLI that answers `initialize`, starts a `sleep` on its own stdout, and runs `die` on a user line. */
const cli = (die: string) => `#!/usr/bin/env node
if (process.argv.includes("--version")) { console.log("2.1.200 (Claude Code)"); process.exit(0) }
require("child_process").spawn("sleep", ["30"], { stdio: ["ignore", "inherit", "ignore"] })
let buf = ""
process.stdin.on("data", (chunk) => {
  buf += chunk
  let i
  while ((i = buf.indexOf("\\n")) >= 0) {
    const m = JSON.parse(buf.slice(0, i))
    buf = buf.slice(i + 1)
    if (m.type === "control_request") {
      const response = { subtype: "success", request_id: m.request_id, response: { commands: [] } }
      process.stdout.write(JSON.stringify({ type: "control_response", response }) + "\\n")
    }
    if (m.type === "user") { ${die} }
  }
})
`

describe("a CLI that dies while another process holds its stdout", () => {
  for (
    const [name, die, expected] of [
      ["killed (SIGKILL)", `process.kill(process.pid, "SIGKILL")`, { exitCode: null, signal: "SIGKILL" }],
      ["exiting 0 mid-turn", `process.exit(0)`, { exitCode: 0, signal: null }]
    ] as const
  ) {
    it.live(`${name}: the turn fails with its exit at once`, () =>
      Effect.gen(function*() {
        const dir = yield* makeTempDir("ecc-held-")
        const executable = Path.join(dir, "claude")
        Fs.writeFileSync(executable, cli(die), { mode: 0o755 })
        const session = yield* Claude.open({ executable, closeGrace: "1 second" })
        const start = yield* Clock.currentTimeMillis
        const exit = yield* Effect.exit(session.run("hi")).pipe(Effect.timeoutOption("8 seconds"))
        assert.isTrue(Option.isSome(exit), "the turn did not end within 8 s")
        const reason = reasonOf(Option.getOrThrow(exit))
        assert.strictEqual(reason._tag, "ProcessExited", JSON.stringify(reason))
        if (reason._tag === "ProcessExited") {
          assert.strictEqual(reason.exitCode, expected.exitCode)
          assert.strictEqual(reason.signal, expected.signal)
        }
        assert.isBelow((yield* Clock.currentTimeMillis) - start, 3_000)
      }).pipe(Effect.scoped, Effect.provide(Claude.layerProcess)))
  }
})
