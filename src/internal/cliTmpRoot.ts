/**
 * A temporary root of its own for each CLI process, removed after it.
 *
 * Why: CLI 2.1.332 keeps its temporary files under its temporary root (`CLAUDE_CODE_TMPDIR`, else
 * the system's temporary directory): `claude-<uid>/<project>/<session>/` with the output of every
 * background task, `cc-socks/<pid>.sock`, `fswatch-probe-*` directories; it removes none of them
 * when it exits, so every session left a set behind, for good. Its own variable, not `TMPDIR`, so
 * that the model's tools keep the user's temporary directory. (CLI 2.1.0 reads no such variable,
 * and its files stay where they were.)
 */
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { Fs } from "./nodeFs.ts"

const VARIABLE = "CLAUDE_CODE_TMPDIR"

/**
 * Sets `CLAUDE_CODE_TMPDIR` in `env` (the CLI's whole environment) to a directory made where the
 * CLI would have put its files (an inherited `CLAUDE_CODE_TMPDIR`, else its `TMPDIR`), removed
 * with everything in it when the scope closes; unless the session's own variables (`sessionEnv`)
 * name it, which is then the session's choice, left as it is.
 *
 * Short (`claude-XXXXXX`): the CLI puts Unix sockets under it, whose paths are limited to about a
 * hundred bytes. When it cannot be made, a warning, and the CLI uses its `TMPDIR` as it would have
 * (it makes a missing one itself): the session goes on.
 */
export const provide = (
  env: Record<string, string | undefined>,
  sessionEnv: Readonly<Record<string, unknown>>
): Effect.Effect<void, never, Scope.Scope> => {
  if (Object.hasOwn(sessionEnv, VARIABLE)) return Effect.void
  return Effect.acquireRelease(
    Effect.suspend(() => {
      const base = env[VARIABLE] || env.TMPDIR || process.getBuiltinModule("node:os").tmpdir()
      try {
        return Effect.succeed(Fs.mkdtempSync(Path.join(base, "claude-")))
      } catch (error) {
        return Effect.as(
          Effect.logWarning(`could not make a temporary directory of its own for the CLI in ${base}: its temporary files stay there`, error),
          undefined
        )
      }
    }),
    // Removed without blocking the event loop: it may hold every background task's output, and
    // other sessions of the process go on meanwhile.
    (dir) =>
      dir === undefined ? Effect.void : Effect.tryPromise(() => Fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 2 })).pipe(
        Effect.catch((error) => Effect.logWarning(`could not remove the CLI's temporary directory ${dir}`, error.cause))
      )
  ).pipe(Effect.map((dir) => {
    if (dir !== undefined) env[VARIABLE] = dir
  }))
}
