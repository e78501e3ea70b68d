/**
 * The package's command line (`effect/cli`): `effect-claude-code view <transcript.ndjson>`
 * serves a transcript's timeline on 127.0.0.1 and prints its URL; `--follow` keeps reading a
 * transcript a session is still writing; `--html out.html` writes the page to one file instead.
 *
 * @since 0.2.0
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Argument from "effect/cli/Argument"
import * as CliError from "effect/cli/CliError"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as ClaudeError from "../ClaudeError.ts"
import * as Server from "./server.ts"

/** A library error as the command line shows it: its description, no stack. */
const userError = (error: ClaudeError.ClaudeError) =>
  new CliError.UserError({
    cause: error,
    userMessage: "description" in error.reason && typeof error.reason.description === "string"
      ? error.reason.description
      : error.message
  })

/**
 * `view <transcript>`: serves the timeline until interrupted, or writes it with `--html`.
 *
 * @since 0.2.0
 * @category commands
 */
export const view = Command.make(
  "view",
  {
    transcript: Argument.String("transcript").pipe(
      Argument.withDescription("The transcript file (NDJSON, written by Transcript.toFile)")
    ),
    port: Flag.Int("port").pipe(
      Flag.withDescription("The port on 127.0.0.1 (default: a free one)"),
      Flag.optional
    ),
    follow: Flag.Boolean("follow").pipe(
      Flag.withDescription("Update the page while a session is still writing the transcript"),
      Flag.withDefault(false)
    ),
    html: Flag.String("html").pipe(
      Flag.withDescription("Write the page to this file (self-contained, opens offline) instead of serving it"),
      Flag.optional
    )
  },
  Effect.fn("Viewer.view")(function*({ follow, html, port, transcript }) {
    if (Option.isSome(html)) {
      // `--follow` and `--port` are the served page's: with `--html` they would do nothing.
      const serving = [follow ? "--follow" : undefined, Option.isSome(port) ? "--port" : undefined].filter((f) => f !== undefined)
      if (serving.length > 0) {
        return yield* userError(ClaudeError.make(
          new ClaudeError.InvalidInput({
            description: `--html writes the page to a file once; ${serving.join(" and ")} serve it instead: give one or the other`
          })
        ))
      }
      yield* Server.writeHtml(transcript, html.value).pipe(Effect.mapError(userError))
      yield* Console.log(`wrote ${html.value}`)
      return
    }
    yield* Effect.scoped(Effect.gen(function*() {
      const served = yield* Server.serve({ path: transcript, port: Option.getOrUndefined(port), follow }).pipe(
        Effect.mapError(userError)
      )
      yield* Console.log(`timeline of ${transcript}${follow ? " (following)" : ""}: ${served.url}`)
      return yield* Effect.never
    }))
  })
).pipe(Command.withDescription("Show a recorded session (a transcript) as a timeline page"))

/**
 * The root command, `effect-claude-code`, with its subcommands.
 *
 * @since 0.2.0
 * @category commands
 */
export const command = Command.make("effect-claude-code").pipe(
  Command.withDescription("Tools of effect-claude-code"),
  Command.withSubcommands([view])
)
