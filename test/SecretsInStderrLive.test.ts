/**
 * A secret the CLI prints on stderr where the library cuts stderr (live tier: a node script as the
 * CLI), found by a reviewing helper (each test failed before its fix): the exit status keeps only
 * the last 8 KiB, and the secrets were taken out after that cut, so a cut inside a secret left its
 * end in `ProcessExited.stderrTail`; a line longer than 16 Ki characters is logged in pieces, and
 * each piece was redacted alone, so a cut inside a secret logged it in two clear halves.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import { processLayer } from "./support/live.ts"
import { exitTexts, failureTag, withCapturedLogs } from "./support/secrets.ts"
import { makeTempDir } from "./support/tempDir.ts"

/**
 * A CLI that writes `stderr(key)` (the API key it was given) on stderr and exits 1 without
 * reading its input.
 */
const crashingCli = (stderr: string) =>
  Effect.gen(function*() {
    const dir = yield* makeTempDir("secrets-in-stderr-")
    const file = Path.join(dir, "cli.mjs")
    Fs.writeFileSync(file, `const key = process.env.ANTHROPIC_API_KEY\nprocess.stderr.write(${stderr})\nprocess.exitCode = 1\n`)
    return file
  })

/** A fresh key, long enough that its start and its end are secrets of their own. */
const makeKey = () => `sk-ant-api03-${Crypto.randomBytes(48).toString("hex")}`

/** What `run` failed with, and every log line written meanwhile. */
const runOn = (file: string, key: string) =>
  Effect.gen(function*() {
    const logs: Array<string> = []
    const exit = yield* Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open({
        executable: { command: process.execPath, args: [file] },
        apiKey: Redacted.make(key),
        closeGrace: "1 second"
      })
      return yield* session.run("hi")
    })).pipe(Effect.exit, withCapturedLogs(logs), Effect.provide(processLayer))
    return { exit, logs }
  })

describe("a secret on stderr, where the library cuts it", () => {
  it.live("the 8 KiB tail starting inside the key: ProcessExited.stderrTail holds none of its end", () =>
    Effect.gen(function*() {
      const key = makeKey()
      // The 8 KiB the transport kept started 40 characters before the key's end.
      const file = yield* crashingCli("`auth: key=${key}` + \"z\".repeat(8 * 1024 - 40)")
      const { exit } = yield* runOn(file, key)
      assert.strictEqual(failureTag(exit), "ProcessExited")
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons.find((reason) => reason._tag === "Fail") : undefined
      const reason = (error as { readonly error: ClaudeError.ClaudeError } | undefined)?.error.reason
      assert.instanceOf(reason, ClaudeError.ProcessExited)
      const tail = (reason as ClaudeError.ProcessExited).stderrTail
      assert.include(tail, "z".repeat(1000))
      assert.notInclude(tail, key.slice(-40))
      assert.notInclude(tail, key.slice(-8))
      for (const text of exitTexts(exit)) assert.notInclude(text, key.slice(-40))
    }), { timeout: 30_000 })

  it.live("a line over 16 Ki characters cut inside the key: no log line holds either half", () =>
    Effect.gen(function*() {
      const key = makeKey()
      // The line's first piece ends with the key's first 10 characters.
      const file = yield* crashingCli("\"y\".repeat(16 * 1024 - 10) + key + \"\\n\"")
      const { exit, logs } = yield* runOn(file, key)
      assert.strictEqual(failureTag(exit), "ProcessExited")
      // The line was logged (so the checks below look at something).
      assert.isTrue(logs.some((line) => line.includes("claude stderr: yyyyyyyy")), "the stderr line was not logged")
      for (const line of logs) {
        assert.notInclude(line, key.slice(10))
        assert.notInclude(line, "y".repeat(20) + key.slice(0, 10))
        assert.isFalse(line.endsWith(key.slice(0, 10)))
      }
    }), { timeout: 30_000 })
})
