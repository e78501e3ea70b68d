/**
 * A CLI that dies by itself (an error code, or a signal: the OOM killer's SIGKILL, a SIGTERM from
 * outside) leaves nothing running behind it, at once, not only when the session's scope closes:
 * neither what it started in its process group (an MCP server over stdio) nor what it started in
 * a session of its own (CLI 2.1.332 runs each Bash command so: a test run, a dev server). The
 * session has failed with `ProcessExited`; a program that keeps its scope open (a server holding
 * sessions) had those processes running on for good.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { Transport } from "../src/Transport.ts"
import * as ProcessTransport from "../src/internal/processTransport.ts"
import { isRunning } from "./support/processes.ts"
import { makeTempDir } from "./support/tempDir.ts"

const deaths = [["exit 1", "exit 1"], ["SIGKILL", "kill -KILL $$"], ["SIGTERM", "kill -TERM $$"]] as const
// `sleep` in the CLI's group (no job control: the same group), or in a session of its own.
const tools = [["in its process group", "sleep 60 &"], ["in a session of its own", "setsid sleep 60 &"]] as const

describe.runIf(process.platform === "linux")("a CLI that dies while a process it started runs", () => {
  for (const [death, die] of deaths) {
    for (const [where, start] of tools) {
      it.live(`${death}, the process ${where}: it ends at once, the scope still open`, () =>
        Effect.gen(function*() {
          const dir = yield* makeTempDir("ecc-cli-death-")
          const cli = Path.join(dir, "claude")
          const pidFile = Path.join(dir, "tool.pid")
          Fs.writeFileSync(cli, `#!/bin/sh\n${start}\necho $! > "${pidFile}"\nsleep 0.1\n${die}\n`, { mode: 0o755 })
          const transport = yield* Transport
          const connection = yield* transport.open({ executable: cli, args: [], env: {}, closeGrace: Duration.seconds(5) })
          yield* connection.exit
          const tool = Number(Fs.readFileSync(pidFile, "utf8"))
          for (let waited = 0; isRunning(tool) && waited < 2_000; waited += 50) yield* Effect.sleep("50 millis")
          const left = isRunning(tool)
          if (left) process.kill(tool, "SIGKILL")
          assert.isFalse(left, `the process ${tool} still ran 2 s after the CLI died (${death})`)
        }).pipe(Effect.scoped, Effect.provide(ProcessTransport.layer)))
    }
  }
})
