/**
 * CLI 2.1.332 defines two more dialog kinds whose result is one of a closed list than
 * `UserDialogs.knownResults` had (its binary's `Es({kind, result, default})` definitions, with the
 * kind's name in a variable): `resume_return` and `check_in_question`. A result off their lists
 * went out as `completed`, unreported, and the CLI replaced it by the dialog's default without a
 * word. Found by a reviewing helper (failing before).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import type * as HandlerFailure from "../src/HandlerFailure.ts"
import * as UserDialogs from "../src/UserDialogs.ts"

const closed: Record<string, ReadonlyArray<string>> = {
  resume_return: ["compact", "continue", "dismiss", "never", "cancelled"],
  check_in_question: ["new", "chat", "tried", "agents", "own", "check", "step", "other_question", "skip", "cancelled"]
}

const show = (kind: string, result: unknown) =>
  Effect.gen(function*() {
    const reports: Array<HandlerFailure.HandlerFailed> = []
    const service = yield* UserDialogs.fromHandler([kind], () => Effect.succeed(UserDialogs.completed(result)))
    const answer = yield* UserDialogs.bind(service, (event) => void reports.push(event))
      .show({ subtype: "request_user_dialog", dialog_kind: kind, payload: {} }, "r1")
      .pipe(Effect.provide(Logger.layer([])))
    return { answer, reports }
  })

describe("UserDialogs: the closed-list kinds knownResults missed", () => {
  for (const [kind, results] of Object.entries(closed)) {
    it.effect(`${kind}: a result off its list is cancelled and reported; each on it goes through`, () =>
      Effect.gen(function*() {
        const off = yield* show(kind, "yes")
        assert.deepStrictEqual(off.answer, { behavior: "cancelled" })
        assert.deepStrictEqual(off.reports.map((r) => r.failure), ["invalid_answer"])
        assert.deepStrictEqual(UserDialogs.knownResults[kind], results)
        for (const result of results) {
          const on = yield* show(kind, result)
          assert.deepStrictEqual(on.answer, { behavior: "completed", result })
          assert.strictEqual(on.reports.length, 0)
        }
      }))
  }
})
