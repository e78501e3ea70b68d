/**
 * A fake CLI for control-method tests: it answers `initialize`, then every control request with
 * an empty success (`mcp_set_servers` with empty lists) or the test's answer, and records each
 * request's body.
 */
import * as Effect from "effect/Effect"
import * as FakeCli from "../../src/testing/FakeCli.ts"

/** The empty answer to each request (`mcp_set_servers` with empty lists). */
const emptyAnswer = (body: Record<string, unknown>): Record<string, unknown> =>
  body.subtype === "mcp_set_servers" ? { added: [], removed: [], errors: {} } : {}

/** The empty answer, but `set_permission_mode` is answered with the mode it asks, as the CLI does. */
export const modeAnswer = (body: Record<string, unknown>): Record<string, unknown> =>
  body.subtype === "set_permission_mode" ? { mode: body.mode } : emptyAnswer(body)

/**
 * A CLI that answers every control request with `answer` of its body (by default an empty
 * success; `undefined`: it never answers that one); what it got goes to `received`. `initialize`
 * is merged into its `initialize` answer; `first` runs once that is answered (a turn, say).
 */
export const answering = (
  received: Array<Record<string, unknown>>,
  answer: (body: Record<string, unknown>) => Record<string, unknown> | undefined = emptyAnswer,
  options?: {
    readonly initialize?: Record<string, unknown>
    readonly first?: (cli: FakeCli.FakeCliHandle) => Effect.Effect<void, unknown>
  }
) =>
  FakeCli.layer((cli) =>
    Effect.gen(function*() {
      yield* FakeCli.answerInitialize(cli, options?.initialize)
      if (options?.first !== undefined) yield* Effect.orDie(options.first(cli))
      while (true) {
        const request = yield* cli.nextMatching((m) => m.type === "control_request")
        const body = request.request as Record<string, unknown>
        received.push(body)
        const answered = answer(body)
        if (answered !== undefined) yield* cli.emit(FakeCli.success(request, answered))
      }
    })
  )
