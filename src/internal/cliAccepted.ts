/**
 * Whether a session may run turns on its CLI, decided once the CLI answered `initialize`: the
 * CLI's version, an unsupported one (unless the program accepted it) refused with
 * `UnsupportedCliVersion`, and, when the session registered hooks, whether the CLI put them in
 * place.
 *
 * A CLI that refuses `initialize` (or does not answer it in time) still gets the turn, and says
 * why on the turn; its version is then told by `claude --version`. Not with hooks: they are
 * registered by `initialize`, and a turn would run tools no guard saw, so the session ends with
 * that error instead (fail closed). Nor when the CLI says it did not put them in place, or does
 * not honor an `onFailure: "block"` the program asked for (a failed callback would let the action
 * run).
 */
import * as Effect from "effect/Effect"
import * as ClaudeError from "../ClaudeError.ts"
import * as CliVersion from "../CliVersion.ts"
import type * as Hooks from "../Hooks.ts"
import type { LaunchSpec, Transport } from "../Transport.ts"
import { isRecord } from "./json.ts"

/**
 * `initialize`'s answer, when the CLI put the session's hooks in place: not when it says it did
 * not (`hooks_applied: false`), nor, when the program asked for `onFailure: "block"`, when it
 * does not say it honors that (`hook_on_failure_supported`).
 */
const hooksInPlace = (body: unknown, blockAsked: boolean): Effect.Effect<unknown, ClaudeError.ClaudeError> => {
  const answer = isRecord(body) ? body : {}
  const refused = (error: string) =>
    Effect.fail(ClaudeError.make(new ClaudeError.ControlRejected({ subtype: "initialize", error, by: "host" })))
  if (answer.hooks_applied === false) {
    return refused("the CLI did not put the session's hooks in place (hooks_applied: false), so no turn runs without them")
  }
  if (blockAsked && answer.hook_on_failure_supported !== true) {
    return refused(
      `the CLI does not honor onFailure: "block" on hooks (its initialize answer lacks hook_on_failure_supported), ` +
        `so a hook that fails would not block; update Claude Code, or remove onFailure: "block"`
    )
  }
  return Effect.succeed(body)
}

/**
 * The CLI's version once `initialize` is answered (`initializeAnswer`), or why the session may
 * run no turn on this CLI. `hooks`: the session's hooks' binding, if any.
 */
export const check = (
  initializeAnswer: Effect.Effect<unknown, ClaudeError.ClaudeError>,
  hooks: Hooks.Bound | undefined,
  spec: Omit<LaunchSpec, "args">,
  connection: { readonly pid: number | undefined },
  policy: CliVersion.Policy | undefined
): Effect.Effect<string | undefined, ClaudeError.ClaudeError, Transport> => {
  const answered = hooks !== undefined && Object.keys(hooks.initialize).length > 0
    ? Effect.flatMap(initializeAnswer, (body) => hooksInPlace(body, hooks.blockAsked))
    : Effect.orElseSucceed(initializeAnswer, () => undefined)
  return Effect.flatMap(answered, (body) => CliVersion.verify(body, spec, connection, policy))
}
