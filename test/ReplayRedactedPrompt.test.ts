/**
 * A replay of a transcript whose prompts held a secret (the account e-mail here): the recorder
 * wrote `[redacted]` in its place, and the replay matches the program's prompt with each
 * `[redacted]` standing for a non-empty text. Before, it matched the exact text, so the replay
 * failed with `ReplayMismatch`, and that error showed the secret in clear (found by a security
 * review). A prompt that differs still fails; its error shows no secret of the recording.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as Transcript from "../src/Transcript.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Replay from "../src/testing/Replay.ts"

const EMAIL = "alice.account@example.com"

/** A temporary directory, removed when the test's scope closes (a failing assertion too). */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-probe-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** Records a session with the account e-mail running `prompts` into `file`. */
const record = (file: string, prompts: ReadonlyArray<string>) =>
  Effect.scoped(Effect.gen(function*() {
    const recorder = yield* Transcript.toFile(file)
    const session = yield* Claude.open({ transcript: recorder, closeGrace: "300 millis" })
    for (const prompt of prompts) yield* session.run(prompt)
  })).pipe(Effect.provide(FakeCli.layer((cli) =>
    Effect.gen(function*() {
      yield* FakeCli.answerInitialize(cli, { account: { email: EMAIL } })
      for (;;) {
        const user = yield* Effect.exit(cli.nextMatching((m) => m.type === "user"))
        if (user._tag === "Failure") return 0
        for (const line of FakeCli.textTurn({ sessionId: "s-1", text: "done", userMessageUuid: String(user.value.uuid) })) {
          yield* cli.emit(line)
        }
      }
    })
  )))

/** Replays `file` running `prompts`: the exit of the last. */
const replay = (file: string, prompts: ReadonlyArray<string>) =>
  Effect.scoped(Effect.gen(function*() {
    const session = yield* Claude.open({ closeGrace: "300 millis" })
    for (const prompt of prompts.slice(0, -1)) yield* session.run(prompt).pipe(Effect.timeout("3 seconds"))
    return yield* Effect.exit(session.run(prompts[prompts.length - 1]!).pipe(Effect.timeout("3 seconds")))
  })).pipe(Effect.provide(Replay.layer(file)))

describe("replay of a redacted transcript", () => {
  it.live("replay of a transcript whose prompt names the account e-mail", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "t.ndjson")
      const prompt = `Sign the summary as ${EMAIL}`
      yield* record(file, [prompt])
      const written = Fs.readFileSync(file, "utf8")
      assert.notInclude(written, EMAIL)
      const replayed = yield* replay(file, [prompt])
      assert.isTrue(replayed._tag === "Success", JSON.stringify(replayed).slice(0, 1500))
    }), 20_000)

  it.live("a prompt that differs still fails with ReplayMismatch, and its error shows no secret of the recording", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "t.ndjson")
      yield* record(file, [`Sign the summary as ${EMAIL}`, "thanks"])
      const cases = [
        // The e-mail in another place: no recorded prompt matches; what differs from the one
        // holding `[redacted]` is masked.
        { prompts: [`Sign as ${EMAIL} the summary`], shown: `"content":"Sign [redacted]"` },
        // The first prompt matches (the e-mail is learnt there), the second differs and names it.
        { prompts: [`Sign the summary as ${EMAIL}`, `thanks, ${EMAIL}`], shown: `"content":"thanks, [redacted]"` }
      ]
      for (const { prompts, shown: actual } of cases) {
        const replayed = yield* replay(file, prompts)
        assert.isTrue(Exit.isFailure(replayed), prompts.join(" / "))
        const error = Exit.isFailure(replayed) ? Option.getOrUndefined(Cause.findErrorOption(replayed.cause)) : undefined
        const reason = ClaudeError.isClaudeError(error) ? error.reason : undefined
        assert.strictEqual(reason?._tag, "ReplayMismatch", Exit.isFailure(replayed) ? Cause.pretty(replayed.cause) : "success")
        const shown = Exit.isFailure(replayed) ? `${Cause.pretty(replayed.cause)}\n${JSON.stringify(replayed)}` : ""
        assert.include(shown, "Replay mismatch")
        assert.notInclude(shown, EMAIL, prompts.join(" / "))
        assert.notInclude(shown, "alice.account", prompts.join(" / "))
        assert.include((reason as ClaudeError.ReplayMismatch).actual, actual)
      }
    }), 20_000)
})
