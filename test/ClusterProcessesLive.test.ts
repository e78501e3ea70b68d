/**
 * The cluster tests' runner helper (`scripts/cluster/processes.ts`): stopping runners is bounded,
 * so a runner that ignores SIGTERM fails the test that stops it, named, instead of holding it
 * until the test's own timeout.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { type StoppableRunner, stopRunners } from "../scripts/cluster/processes.ts"
import { isAlive } from "./support/live.ts"

/**
 * A node process as a runner of port `port`, up once it printed its first line (its SIGTERM
 * handler in place): one that ignores SIGTERM when `stubborn`. Killed with the scope.
 */
const runner = (port: number, stubborn: boolean) =>
  Effect.acquireRelease(
    Effect.callback<StoppableRunner>((resume) => {
      const script = `${stubborn ? "process.on('SIGTERM', () => {}); " : ""}console.log('up'); setInterval(() => {}, 1000)`
      const child = ChildProcess.spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "ignore"] })
      const exited = Deferred.makeUnsafe<void>()
      child.on("exit", () => Deferred.doneUnsafe(exited, Exit.void))
      child.stdout.once("data", () => resume(Effect.succeed({ port, child, exited })))
    }),
    ({ child, exited }) =>
      Effect.suspend(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
        return Deferred.await(exited)
      })
  )

describe("stopRunners", () => {
  it.live("waits until every runner exited on SIGTERM", () =>
    Effect.gen(function*() {
      const runners = [yield* runner(1, false), yield* runner(2, false)]
      yield* stopRunners(runners, "10 seconds")
      for (const { exited } of runners) assert.isTrue(Deferred.isDoneUnsafe(exited))
    }).pipe(Effect.scoped))

  it.live("sends SIGTERM to all first, and fails at the bound naming every runner still running", () =>
    Effect.gen(function*() {
      // Two stubborn runners: waited for side by side, the failure comes at the bound (1 s), not
      // at twice it; the one in between exited on its SIGTERM.
      const runners = [yield* runner(1, true), yield* runner(2, false), yield* runner(3, true)]
      const started = yield* Clock.currentTimeMillis
      const stopped = yield* Effect.exit(stopRunners(runners, "1 second"))
      const took = (yield* Clock.currentTimeMillis) - started
      assert.isTrue(Exit.isFailure(stopped))
      const error = Exit.isFailure(stopped) ? stopped.cause.reasons.find((r) => r._tag === "Fail")?.error : undefined
      const [first, second, third] = runners as [StoppableRunner, StoppableRunner, StoppableRunner]
      assert.strictEqual(
        String(error),
        `Error: runner 1 (pid ${first.child.pid}), runner 3 (pid ${third.child.pid}) did not exit within 1s of SIGTERM`
      )
      assert.isAtLeast(took, 1_000, "the bound was waited for")
      assert.isBelow(took, 1_900, "the runners were waited for side by side")
      assert.isTrue(Deferred.isDoneUnsafe(second.exited))
      assert.isTrue(isAlive(first.child.pid!) && isAlive(third.child.pid!))
    }).pipe(Effect.scoped))
})
