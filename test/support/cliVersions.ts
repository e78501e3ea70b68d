/**
 * Other versions of the real CLI for the compatibility tests: each one installed from the npm
 * registry into its own folder under the repository's gitignored `.tmp/cli-versions/<version>/`
 * (kept between runs, so only the first run downloads), never as a devDependency. The pinned
 * newest is the devDependency itself.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import { cliPath } from "./realCli.ts"

/** Where the versions are installed. */
export const versionsDir: string = Path.resolve(import.meta.dirname, "../../.tmp/cli-versions")

/** The pinned CLI's version (the devDependency). */
export const pinnedVersion: string = (JSON.parse(
  Fs.readFileSync(Path.resolve(import.meta.dirname, "../../node_modules/@anthropic-ai/claude-code/package.json"), "utf8")
) as { readonly version: string }).version

/** The `claude` executable of an installed version. */
export const executableOf = (version: string): string =>
  version === pinnedVersion ? cliPath : Path.join(versionsDir, version, "node_modules/.bin/claude")

const installed = (version: string): boolean => {
  const manifest = Path.join(versionsDir, version, "node_modules/@anthropic-ai/claude-code/package.json")
  if (!Fs.existsSync(manifest) || !Fs.existsSync(executableOf(version))) return false
  return (JSON.parse(Fs.readFileSync(manifest, "utf8")) as { readonly version: string }).version === version
}

/**
 * Installs `@anthropic-ai/claude-code@<version>` (exact) into its own folder, unless it is there
 * already, and returns its executable and how long the install took (0 when cached). npm runs
 * the package's own install script (the native builds fetch their platform binary as an optional
 * dependency). Fails with npm's output when the install fails.
 */
const installs = new Map<string, Effect.Effect<{ readonly executable: string; readonly millis: number }, Error>>()

/**
 * {@link install}, once per version and process: concurrent callers share one install (its
 * outcome, a failure included).
 */
export const installOnce = (version: string): Effect.Effect<{ readonly executable: string; readonly millis: number }, Error> => {
  let cached = installs.get(version)
  if (cached === undefined) {
    cached = Effect.runSync(Effect.cached(install(version)))
    installs.set(version, cached)
  }
  return cached
}

export const install = (version: string): Effect.Effect<{ readonly executable: string; readonly millis: number }, Error> =>
  Effect.gen(function*() {
    if (version === pinnedVersion || installed(version)) return { executable: executableOf(version), millis: 0 }
    const dir = Path.join(versionsDir, version)
    Fs.rmSync(dir, { recursive: true, force: true })
    Fs.mkdirSync(dir, { recursive: true })
    Fs.writeFileSync(Path.join(dir, "package.json"), JSON.stringify({ name: `cli-${version}`, private: true }) + "\n")
    const npm = process.platform === "win32" ? "npm.cmd" : "npm"
    const start = Date.now()
    yield* Effect.callback<void, Error>((resume) => {
      const child = ChildProcess.execFile(
        npm,
        ["install", "--no-audit", "--no-fund", "--no-save", "--no-package-lock", `@anthropic-ai/claude-code@${version}`],
        { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) =>
          resume(
            error === null
              ? Effect.void
              : Effect.fail(new Error(`npm install @anthropic-ai/claude-code@${version} failed: ${error.message}\n${stdout}${stderr}`))
          )
      )
      return Effect.sync(() => child.kill("SIGTERM"))
    })
    if (!installed(version)) return yield* Effect.fail(new Error(`@anthropic-ai/claude-code@${version} installed, but no executable in ${dir}`))
    return { executable: executableOf(version), millis: Date.now() - start }
  })
