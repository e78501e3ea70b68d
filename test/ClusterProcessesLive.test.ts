/**
 * The cluster tests' runner helper (`scripts/cluster/processes.ts`): stopping runners is bounded,
 * so a runner that ignores SIGTERM fails the test that stops it, named, instead of holding it
 * until the test's own timeout.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { type StoppableRunner, stopRunners } from "../scripts/cluster/processes.ts"
import { isAlive } from "./support/live.ts"

/** A node process that ignores SIGTERM (`stubborn`) or exits on it, as a runner of port `port`. */
const child = (port: number, stubborn: boolean): StoppableRunner => {
  const script = stubborn
    ? "process.on('SIGTERM', () => {}); console.log('up'); setInterval(() => {}, 1000)"
    : "console.log('up'); setInterval(() => {}, 1000)"
  const spawned = ChildProcess.spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "ignore"] })
  const exited = Deferred.makeUnsafe<void>()
  spawned.on("exit", () => Deferred.doneUnsafe(exited, Exit.void))
  return { port, child: spawned, exited }
}

/** Waits until the child printed its first line (its SIGTERM handler is in place by then). */
const up = (runner: StoppableRunner) =>
  Effect.callback<void>((resume) => {
    runner.child.stdout!.once("data", () => resume(Effect.void))
  })

describe("stopRunners", () => {
  it.live("waits for runners that exit on SIGTERM", () =>
    Effect.gen(function*() {
      const runners = [child(1, false), child(2, false)]
      yield* Effect.forEach(runners, up, { discard: true })
      yield* stopRunners(runners, "10 seconds")
      for (const runner of runners) assert.isTrue(Deferred.isDoneUnsafe(runner.exited))
    }))

  it.live("fails, naming the runner, when one has not exited within the bound", () =>
    Effect.gen(function*() {
      const runners = [child(1, false), child(2, true)]
      yield* Effect.forEach(runners, up, { discard: true })
      const stopped = yield* Effect.exit(stopRunners(runners, "300 millis"))
      const stubborn = runners[1]!
      try {
        assert.isTrue(Exit.isFailure(stopped))
        const error = Exit.isFailure(stopped) ? stopped.cause.reasons.find((r) => r._tag === "Fail")?.error : undefined
        assert.match(String(error), new RegExp(`runner 2 \\(pid ${stubborn.child.pid}\\) did not exit within 300ms of SIGTERM`))
        assert.isTrue(isAlive(stubborn.child.pid!))
        assert.isTrue(Deferred.isDoneUnsafe(runners[0]!.exited))
      } finally {
        stubborn.child.kill("SIGKILL")
      }
      yield* Deferred.await(stubborn.exited)
    }))
})
