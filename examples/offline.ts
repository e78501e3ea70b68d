/**
 * Runs a program of yours offline, unchanged: `node examples/offline.ts my-program.ts [reply]`
 * starts a fake model (every request answered with `reply`) and runs `node my-program.ts` with the
 * environment that points the `claude` CLI at it (a fresh HOME, a test key, no telemetry), then
 * exits with the program's exit code. The CLI is looked up as usual (`PATH`, then
 * `node_modules/.bin`). Copy it into your project (importing `effect-claude-code/testing`).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as ChildProcess from "node:child_process"
import * as Effect from "effect/Effect"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"

const [program, reply = "Hello from the fake model."] = process.argv.slice(2)

Effect.gen(function*() {
  if (program === undefined) return yield* Effect.fail(new Error("usage: node offline.ts <program.ts> [reply]"))
  const { home, model } = yield* Offline.make(() => FakeModel.text(reply))
  const env = { ...process.env, ...model.cliEnvironment(home) }
  process.exitCode = yield* Effect.callback<number>((resume) => {
    const child = ChildProcess.spawn(process.execPath, [program], { env, stdio: "inherit" })
    child.on("exit", (code) => resume(Effect.succeed(code ?? 1)))
    // Interrupted (Ctrl-C, SIGTERM): the program gets SIGINT and is waited for (SIGKILL after
    // 10 s), so that the fake model and the HOME it runs on are removed after it, not under it.
    return Effect.callback<void>((exited) => {
      if (child.exitCode !== null || child.signalCode !== null) return exited(Effect.void)
      child.once("exit", () => exited(Effect.void))
      child.kill("SIGINT")
    }).pipe(
      Effect.timeoutOption("10 seconds"),
      Effect.andThen(Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL")))
    )
  })
}).pipe(Effect.scoped, NodeRuntime.runMain)
