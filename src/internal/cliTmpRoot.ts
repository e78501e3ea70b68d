/**
 * A temporary root of its own for each CLI process, removed after it, and the `--settings` JSON
 * as a file in it.
 *
 * Why: CLI 2.1.332 keeps its temporary files under its temporary root (`CLAUDE_CODE_TMPDIR`, else
 * the system's temporary directory): `claude-<uid>/<project>/<session>/` with the output of every
 * background task, `cc-socks/<pid>.sock`, `fswatch-probe-*` directories; it removes none of them
 * when it exits, so every session left a set behind, for good. Its own variable, not `TMPDIR`, so
 * that the model's tools keep the user's temporary directory.
 *
 * CLI 2.1.0 reads no such variable. What it left: given `--settings` with inline JSON (the library
 * always passes one, for its `attribution` default), it writes the JSON to
 * `claude-settings-<uuid>.json` in `os.tmpdir()` (its `TMPDIR`), reads its settings from that
 * file, and never removes it: one file a session, for good. So the JSON goes to the CLI as a file
 * the library writes in the root ({@link settingsInRoot}), which the CLI reads as it read its own
 * (2.1.0 takes a path as it takes the file it wrote; 2.1.332 reads the file once, up to 2 MiB),
 * and which goes with the root.
 */
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { Fs } from "./nodeFs.ts"

const VARIABLE = "CLAUDE_CODE_TMPDIR"

/** The name of the settings file in the root (one CLI process per root). */
const SETTINGS_FILE = "settings.json"

/**
 * Makes a directory of the CLI's own, removed with everything in it when the scope closes, and
 * returns it (absolute); undefined when it cannot be made (a warning: the CLI uses its `TMPDIR`
 * as it would have, and makes a missing one itself; the session goes on).
 *
 * It is the CLI's `CLAUDE_CODE_TMPDIR` (set in `env`, the CLI's whole environment), made where
 * the CLI would have put its files (an inherited `CLAUDE_CODE_TMPDIR`, else its `TMPDIR`); unless
 * the session's own variables (`sessionEnv`) name that variable, which is then the session's
 * choice, left as it is: the directory is then made in the CLI's `TMPDIR` (where CLI 2.1.0 puts
 * its settings file) and holds only the settings file.
 *
 * Short (`claude-XXXXXX`): the CLI puts Unix sockets under it, whose paths are limited to about a
 * hundred bytes.
 */
export const provide = (
  env: Record<string, string | undefined>,
  sessionEnv: Readonly<Record<string, unknown>>
): Effect.Effect<string | undefined, never, Scope.Scope> => {
  const sessionNamesIt = Object.hasOwn(sessionEnv, VARIABLE)
  return Effect.acquireRelease(
    Effect.suspend(() => {
      const base = (sessionNamesIt ? undefined : env[VARIABLE]) || env.TMPDIR ||
        process.getBuiltinModule("node:os").tmpdir()
      try {
        // Absolute: the CLI runs in its own working directory, and a relative TMPDIR is the host's.
        return Effect.succeed(Path.resolve(Fs.mkdtempSync(Path.join(base, "claude-"))))
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
    if (dir !== undefined && !sessionNamesIt) env[VARIABLE] = dir
    return dir
  }))
}

/**
 * Where `args` give `--settings` its value as the CLI finds it (the first `--settings <value>` or
 * `--settings=<value>`, as CLI 2.1.0 looks it up), when that value is inline JSON: trimmed, `{`
 * first and `}` last (the CLI's own test), and JSON that parses (a value the CLI would refuse is
 * left for it to refuse). Undefined otherwise: no `--settings`, a file's path.
 */
export const inlineSettings = (
  args: ReadonlyArray<string>
): { readonly index: number; readonly joined: boolean; readonly json: string } | undefined => {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    const joined = arg.startsWith("--settings=")
    if (!joined && !(arg === "--settings" && index + 1 < args.length)) continue
    const json = (joined ? arg.slice("--settings=".length) : args[index + 1]!).trim()
    if (!(json.startsWith("{") && json.endsWith("}"))) return undefined
    try {
      JSON.parse(json)
    } catch {
      return undefined
    }
    return { index, joined, json }
  }
  return undefined
}

/**
 * `args` with their inline `--settings` JSON ({@link inlineSettings}) written to a file in `root`,
 * readable by its owner only, and its path in the JSON's place; the same `args` when they have
 * none, or when the file cannot be written (a warning: the CLI gets the JSON as before).
 */
export const settingsInRoot = (args: ReadonlyArray<string>, root: string): Effect.Effect<ReadonlyArray<string>> =>
  Effect.suspend(() => {
    const inline = inlineSettings(args)
    if (inline === undefined) return Effect.succeed(args)
    const file = Path.join(root, SETTINGS_FILE)
    try {
      // A new file (`wx`) in a directory only its owner may enter, created 0600.
      Fs.writeFileSync(file, inline.json, { mode: 0o600, flag: "wx" })
    } catch (error) {
      return Effect.as(
        Effect.logWarning(`could not write the CLI's settings to ${file}: they go on its command line`, error),
        args
      )
    }
    const out = [...args]
    if (inline.joined) out[inline.index] = `--settings=${file}`
    else out[inline.index + 1] = file
    return Effect.succeed(out)
  })
