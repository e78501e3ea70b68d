/**
 * The session's side of the `sessionStore` option: where the CLI's transcripts are (its config
 * directory, as the CLI finds it from the environment the session gives it), the store key of the
 * session being resumed, and resuming from the store: the session's transcripts (main and
 * subagents) written from the store into the CLI's config directory before the CLI starts, so the
 * CLI resumes it with its own resume code.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as ClaudeError from "../ClaudeError.ts"
import type * as Launch from "../Launch.ts"
import type * as SessionStore from "../SessionStore.ts"
import * as ProjectKey from "./projectKey.ts"

/** A variable of the CLI's environment: the session's `env` over the inherited one. */
const variable = (env: Readonly<Record<string, Launch.EnvValue>>, name: string): string | undefined => {
  if (Object.hasOwn(env, name)) {
    const value = env[name]
    return value === undefined ? undefined : typeof value === "string" ? value : Redacted.value(value)
  }
  return process.env[name]
}

/** Where the CLI the session starts keeps its transcripts and its project key for the session's cwd. */
export const locate = (
  env: Readonly<Record<string, Launch.EnvValue>>,
  cwd: string | undefined
): { readonly configDir: string; readonly projectsDir: string; readonly projectKey: string } => {
  const environment = {
    HOME: variable(env, "HOME"),
    CLAUDE_CONFIG_DIR: variable(env, "CLAUDE_CONFIG_DIR"),
    CLAUDE_CODE_PROJECT_DIR_NAME: variable(env, "CLAUDE_CODE_PROJECT_DIR_NAME")
  }
  const directory = Path.resolve(cwd ?? process.cwd())
  // The CLI runs in `directory`: a relative CLAUDE_CONFIG_DIR (or HOME) is relative to it there.
  const configDir = Path.resolve(
    directory,
    ProjectKey.configDir(environment, environment.HOME ?? Os.homedir(), Path.join)
  )
  let real = directory
  try {
    real = Fs.realpathSync.native(directory)
  } catch {
    // A cwd that does not exist fails the spawn itself, with its own error.
  }
  return {
    configDir,
    projectsDir: Path.join(configDir, "projects"),
    projectKey: ProjectKey.forEnvironment(real.normalize("NFC"), environment)
  }
}

const failed = (store: string, description: string) =>
  ClaudeError.make(new ClaudeError.StoreFailed({ store, operation: "resume", description }))

/** A subpath that stays under the session's directory: no `..`, not absolute, not empty. */
const safeSubpath = (subpath: string): boolean =>
  subpath !== "" && !Path.isAbsolute(subpath) && !subpath.split(/[\\/]/).some((part) => part === ".." || part === "")

/** Writes one transcript from the store to `file`, line by line (bounded memory). */
const writeTranscript = (store: SessionStore.SessionStore["Service"], key: SessionStore.SessionKey, file: string) =>
  Effect.gen(function*() {
    yield* Effect.try({
      try: () => Fs.mkdirSync(Path.dirname(file), { recursive: true, mode: 0o700 }),
      catch: (cause) => failed(store.name, `cannot create ${Path.dirname(file)}: ${String(cause)}`)
    })
    const temporary = `${file}.${process.pid}.resume`
    const fd = yield* Effect.acquireRelease(
      Effect.try({
        try: () => Fs.openSync(temporary, "w", 0o600),
        catch: (cause) => failed(store.name, `cannot write ${temporary}: ${String(cause)}`)
      }),
      (fd) => Effect.sync(() => Fs.closeSync(fd))
    )
    yield* store.load(key).pipe(
      Stream.grouped(256),
      Stream.runForEach((entries) =>
        Effect.try({
          try: () => {
            Fs.writeSync(fd, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(""))
          },
          catch: (cause) => failed(store.name, `cannot write ${temporary}: ${String(cause)}`)
        })
      )
    )
    yield* Effect.try({
      try: () => Fs.renameSync(temporary, file),
      catch: (cause) => failed(store.name, `cannot write ${file}: ${String(cause)}`)
    })
  }).pipe(
    Effect.scoped,
    Effect.tapError(() => Effect.sync(() => Fs.rmSync(`${file}.${process.pid}.resume`, { force: true })))
  )

/**
 * Materializes a stored session into `projectsDir`: `<projectKey>/<sessionId>.jsonl` and each
 * subagent's `<projectKey>/<sessionId>/<subpath>.jsonl`, replacing local copies (the store is the
 * session's truth). Returns false when the store does not have the session (the CLI may have it
 * locally: it is left to resume it or to say it cannot).
 */
export const materialize = Effect.fnUntraced(function*(
  store: SessionStore.SessionStore["Service"],
  projectsDir: string,
  key: { readonly projectKey: string; readonly sessionId: string }
) {
  if (!safeSubpath(key.sessionId) || key.sessionId.includes("/") || key.sessionId.includes("\\")) {
    return yield* Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({
      description: `resume: ${JSON.stringify(key.sessionId)} is not a session id a store can hold`
    })))
  }
  const sessions = yield* store.list(key.projectKey)
  if (!sessions.some((session) => session.sessionId === key.sessionId)) return false
  const projectDir = Path.join(projectsDir, key.projectKey)
  yield* writeTranscript(store, key, Path.join(projectDir, `${key.sessionId}.jsonl`))
  for (const subpath of yield* store.listSubkeys(key)) {
    if (!safeSubpath(subpath)) {
      yield* Effect.logWarning(`session store ${store.name}: skipping the unsafe subpath ${JSON.stringify(subpath)}`)
      continue
    }
    yield* writeTranscript(
      store,
      { ...key, subpath },
      Path.join(projectDir, key.sessionId, `${subpath}.jsonl`)
    )
  }
  return true
})
