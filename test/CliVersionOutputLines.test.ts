/**
 * `claude --version` output with more than the version line: a wrapper script's banner (nvm's
 * "Now using node v20.11.1"), an update notice after it. The version is the one on the line that
 * names Claude Code, not the first `x.y.z` anywhere in the output.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import * as CliVersion from "../src/CliVersion.ts"
import { Transport } from "../src/Transport.ts"

/** A transport whose every process prints `output` on stdout and exits 0. */
const printing = (output: string) =>
  Layer.succeed(
    Transport,
    Transport.of({
      open: () =>
        Effect.succeed({
          pid: 1,
          incoming: Stream.make(new TextEncoder().encode(output)),
          stderr: Stream.empty,
          send: () => Effect.void,
          endInput: Effect.void,
          exit: Effect.succeed({ code: 0, signal: null, stderrTail: "" })
        })
    })
  )

const query = (output: string) =>
  CliVersion.query({ executable: "claude", env: {}, closeGrace: Duration.seconds(1) }).pipe(
    Effect.provide(printing(output))
  )

describe("CliVersion.query", () => {
  it.effect("a banner line before the version line: the Claude Code line's version", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* query("Now using node v20.11.1 (npm v10.2.4)\n2.1.200 (Claude Code)\n"), "2.1.200")
    }))

  it.effect("an update notice after the version line: the Claude Code line's version", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* query("2.1.200 (Claude Code)\nUpdate available: 2.2.3\n"), "2.1.200")
    }))

  it.effect("a bare version (no Claude Code on any line) is still read", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* query("2.1.7\n"), "2.1.7")
    }))
})

describe("CliVersion.verify: a CLI with a process whose version cannot be told", () => {
  /** The messages logged at `level` or above while `effect` runs. */
  const logged = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.gen(function*() {
      const lines: Array<{ readonly level: string; readonly message: string }> = []
      const logger = Logger.make<unknown, void>(({ logLevel, message }) => {
        lines.push({ level: logLevel, message: Array.isArray(message) ? message.join(" ") : String(message) })
      })
      const result = yield* effect.pipe(Effect.provide(Logger.layer([logger])))
      return { result, lines }
    })

  it.effect("claude --version prints no version: the session goes on unchecked, with a warning that says so (not a debug line)", () =>
    Effect.gen(function*() {
      const { result, lines } = yield* logged(
        CliVersion.verify({}, { executable: "claude", env: {}, closeGrace: Duration.seconds(1) }, { pid: 1 }).pipe(
          Effect.provide(printing("claude: command wrapper ready\n"))
        )
      )
      assert.isUndefined(result)
      const warning = lines.find((line) => line.level === "Warn")
      assert.isDefined(warning, JSON.stringify(lines))
      assert.include(warning!.message, "not checked")
    }))

  it.effect("an in-memory CLI (no process) is not asked and not warned about", () =>
    Effect.gen(function*() {
      const { result, lines } = yield* logged(
        CliVersion.verify({}, { executable: "claude", env: {}, closeGrace: Duration.seconds(1) }, { pid: undefined }).pipe(
          Effect.provide(printing("2.1.7\n"))
        )
      )
      assert.isUndefined(result)
      assert.isUndefined(lines.find((line) => line.level === "Warn"))
    }))
})
