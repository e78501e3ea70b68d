/**
 * A CLI that exited long before its scope closes: its pid, which was its process group's id,
 * may by then belong to an unrelated process that leads a group of its own (pids wrap around,
 * at 32768 on many Linux machines). Closing the scope must not signal that group.
 *
 * The reuse is forced with `/proc/sys/kernel/ns_last_pid` (root in its pid namespace); skipped
 * where that file cannot be written.
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as ProcessTransport from "../src/internal/processTransport.ts"
import { Transport } from "../src/Transport.ts"
import { makeTempDir } from "./support/tempDir.ts"

const NS_LAST_PID = "/proc/sys/kernel/ns_last_pid"
const canSetNextPid = (() => {
  try {
    Fs.accessSync(NS_LAST_PID, Fs.constants.W_OK)
    return process.platform === "linux"
  } catch {
    return false
  }
})()

/** A detached `sleep` (a group leader) with pid `pid`, when the kernel hands that pid out. */
const spawnWithPid = (pid: number): NodeChildProcess.ChildProcess | undefined => {
  for (let attempt = 0; attempt < 20; attempt++) {
    Fs.writeFileSync(NS_LAST_PID, String(pid - 1))
    const child = NodeChildProcess.spawn("sleep", ["30"], { detached: true, stdio: "ignore" })
    if (child.pid === pid) return child
    child.kill("SIGKILL")
  }
  return undefined
}

describe.skipIf(!canSetNextPid)("a CLI's process group id reused after it exited", () => {
  it.live("closing the scope leaves the unrelated group that now has that id alone", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-reuse-")
      const cli = Path.join(dir, "claude")
      Fs.writeFileSync(cli, "#!/bin/sh\nexit 0\n", { mode: 0o755 })
      const transport = yield* Transport
      const scope = yield* Scope.make()
      const connection = yield* transport.open({ executable: cli, args: [], env: {}, closeGrace: Duration.seconds(1) })
        .pipe(Scope.provide(scope))
      yield* connection.exit
      const other = spawnWithPid(connection.pid!)
      assert.isDefined(other, "the kernel did not hand out the CLI's pid again")
      const killedBy = new Promise<string | null>((resolve) => other!.once("exit", (_, signal) => resolve(signal)))
      yield* Scope.close(scope, Exit.void)
      const stillAlive = new Promise<string>((resolve) => setTimeout(() => resolve("alive"), 300))
      const signal = yield* Effect.promise(() => Promise.race([killedBy, stillAlive]))
      other!.kill("SIGKILL")
      assert.strictEqual(signal, "alive", "the unrelated process group was signalled")
    }).pipe(Effect.scoped, Effect.provide(ProcessTransport.layer)))
})
