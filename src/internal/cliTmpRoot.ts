/**
 * A temporary root of its own for each CLI process, removed after it, and the `--settings` and
 * `--mcp-config` JSON as files in it.
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
 * the library writes in the root ({@link jsonInRoot}), which the CLI reads as it read its own
 * (2.1.0 takes a path as it takes the file it wrote; 2.1.332 reads the file once, up to 2 MiB),
 * and which goes with the root.
 *
 * The `--mcp-config` JSON goes the same way: it holds the external MCP servers' `env` and
 * `headers` (a `Redacted` token revealed for the CLI), which on the command line any user of the
 * machine could read (`/proc/<pid>/cmdline`, `ps`); the file is its owner's only.
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
 * Whether `json` (trimmed) is inline JSON as the CLI tells it: `{` first and `}` last (the CLI's
 * own test), and JSON that parses; a value the CLI would refuse is left for it to refuse.
 */
const isInlineJson = (json: string): boolean => {
  if (!(json.startsWith("{") && json.endsWith("}"))) return false
  try {
    JSON.parse(json)
    return true
  } catch {
    return false
  }
}

/**
 * Where `args` give `flag` its value as the CLI finds it (the first `<flag> <value>` or
 * `<flag>=<value>`, as CLI 2.1.0 looks `--settings` up), when that value is inline JSON
 * ({@link isInlineJson}). Undefined otherwise: no such flag, a file's path.
 */
export const inlineJson = (
  args: ReadonlyArray<string>,
  flag: string
): { readonly index: number; readonly joined: boolean; readonly json: string } | undefined => {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    const joined = arg.startsWith(`${flag}=`)
    if (!joined && !(arg === flag && index + 1 < args.length)) continue
    const json = (joined ? arg.slice(flag.length + 1) : args[index + 1]!).trim()
    return isInlineJson(json) ? { index, joined, json } : undefined
  }
  return undefined
}

/**
 * Every inline JSON value `args` give `--mcp-config`, which the CLI reads all of (a variadic
 * flag: each `--mcp-config <value>…` up to the next flag, each `--mcp-config=<value>`): the
 * library's and those of `extraArgs`. `index` is the value's own position.
 */
export const inlineMcpConfigs = (
  args: ReadonlyArray<string>
): ReadonlyArray<{ readonly index: number; readonly joined: boolean; readonly json: string }> => {
  const flag = "--mcp-config"
  const found: Array<{ readonly index: number; readonly joined: boolean; readonly json: string }> = []
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    if (arg.startsWith(`${flag}=`)) {
      const json = arg.slice(flag.length + 1).trim()
      if (isInlineJson(json)) found.push({ index, joined: true, json })
    } else if (arg === flag) {
      while (index + 1 < args.length && !args[index + 1]!.startsWith("-")) {
        index++
        const json = args[index]!.trim()
        if (isInlineJson(json)) found.push({ index, joined: false, json })
      }
    }
  }
  return found
}

/**
 * `args` with the inline JSON of `--settings` ({@link inlineJson}) and every inline JSON of
 * `--mcp-config` ({@link inlineMcpConfigs}) each written to a file of its own in `root`, readable
 * by its owner only, and its path in the JSON's place; the same `args` where they have none, or
 * where a file cannot be written (a warning: the CLI gets that JSON on its command line, as
 * before).
 */
export const jsonInRoot = (args: ReadonlyArray<string>, root: string): Effect.Effect<ReadonlyArray<string>> =>
  Effect.suspend(() => {
    const out = [...args]
    const warnings: Array<Effect.Effect<void>> = []
    const settings = inlineJson(out, "--settings")
    const values = [
      ...(settings === undefined ? [] : [{ ...settings, flag: "--settings", name: SETTINGS_FILE }]),
      ...inlineMcpConfigs(out).map((value, i) => ({ ...value, flag: "--mcp-config", name: i === 0 ? "mcp-config.json" : `mcp-config-${i + 1}.json` }))
    ]
    for (const { flag, index, joined, json, name } of values) {
      const file = Path.join(root, name)
      try {
        // A new file (`wx`) in a directory only its owner may enter, created 0600.
        Fs.writeFileSync(file, json, { mode: 0o600, flag: "wx" })
      } catch (error) {
        warnings.push(Effect.logWarning(`could not write the CLI's ${flag} JSON to ${file}: it goes on its command line`, error))
        continue
      }
      // `--settings` is found at its flag; an `--mcp-config` value at its own position.
      if (joined) out[index] = `${flag}=${file}`
      else out[flag === "--settings" ? index + 1 : index] = file
    }
    return Effect.as(Effect.all(warnings, { discard: true }), out)
  })
