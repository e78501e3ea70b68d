/**
 * A throwaway PostgreSQL server for live tests: Debian's `postgresql` binaries (`initdb`, `pg_ctl`),
 * a fresh data directory under `os.tmpdir()`, a free port on 127.0.0.1, trust authentication for
 * the `postgres` user. Stopped (immediate mode) and removed when the scope closes.
 *
 * As root, PostgreSQL refuses to run, so the binaries run as the `postgres` user
 * (`runuser -u postgres --`) and the data directory is handed to that user.
 * The binaries are looked up in `PG_BIN` when set, else in Debian's `/usr/lib/postgresql/<major>/bin`
 * (15, then any other installed major); `.ci/run` installs the `postgresql` package when missing.
 *
 * Starts processes: only for `*Live.test.ts` files.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, beforeAll } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"

/** A running server: where to connect, as whom. */
export interface Postgres {
  readonly host: string
  readonly port: number
  readonly username: string
  readonly database: string
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string
  /** The server's log file (in the data directory's parent, removed with it). */
  readonly logFile: string
}

const debianRoot = Path.join(Path.sep, "usr", "lib", "postgresql")

/** The directory of `initdb` and `pg_ctl`, or undefined when PostgreSQL is not installed. */
export const findPostgresBin = (): string | undefined => {
  const fromEnv = process.env["PG_BIN"]
  if (fromEnv !== undefined && Fs.existsSync(Path.join(fromEnv, "pg_ctl"))) return fromEnv
  const majors = Fs.existsSync(debianRoot) ? Fs.readdirSync(debianRoot).sort((a, b) => Number(b) - Number(a)) : []
  const ordered = ["15", ...majors.filter((major) => major !== "15")]
  for (const major of ordered) {
    const bin = Path.join(debianRoot, major, "bin")
    if (Fs.existsSync(Path.join(bin, "pg_ctl"))) return bin
  }
  return undefined
}

const freePort = (): Effect.Effect<number, Error> =>
  Effect.callback<number, Error>((resume) => {
    const server = Net.createServer()
    server.once("error", (error) => resume(Effect.fail(error)))
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resume(port > 0 ? Effect.succeed(port) : Effect.fail(new Error("no free port"))))
    })
  })

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0

/** Runs a PostgreSQL binary, as the `postgres` user when this process is root. */
const runPg = (bin: string, tool: string, args: ReadonlyArray<string>) =>
  Effect.try({
    try: () => {
      const [command, argv] = isRoot()
        ? ["runuser", ["-u", "postgres", "--", Path.join(bin, tool), ...args]] as const
        : [Path.join(bin, tool), [...args]] as const
      ChildProcess.execFileSync(command, argv, { stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 })
    },
    catch: (cause) => {
      const stderr = typeof cause === "object" && cause !== null && "stderr" in cause ? String(cause.stderr) : ""
      return new Error(`${tool} ${args.join(" ")} failed: ${stderr || String(cause)}`)
    }
  })

const handToPostgres = (dir: string) =>
  Effect.try({
    try: () => {
      if (!isRoot()) return
      const uid = Number(ChildProcess.execFileSync("id", ["-u", "postgres"]).toString().trim())
      const gid = Number(ChildProcess.execFileSync("id", ["-g", "postgres"]).toString().trim())
      Fs.chownSync(dir, uid, gid)
    },
    catch: (cause) => new Error(`cannot hand ${dir} to the postgres user: ${String(cause)}`)
  })

/**
 * Starts a fresh server for the scope. Fails (with the server's log) when PostgreSQL is missing or
 * does not start: a live test that needs it must not pass without it.
 */
export const startPostgres: Effect.Effect<Postgres, Error, Scope.Scope> = Effect.gen(function*() {
  const bin = findPostgresBin()
  if (bin === undefined) {
    return yield* Effect.fail(
      new Error("PostgreSQL is not installed (apt-get install postgresql; .ci/run does it), or set PG_BIN")
    )
  }
  const root = yield* Effect.acquireRelease(
    Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-pg-"))),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )
  yield* handToPostgres(root)
  const data = Path.join(root, "data")
  const logFile = Path.join(root, "server.log")
  yield* runPg(bin, "initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"])
  const port = yield* freePort()
  const serverOptions = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`
  yield* Effect.acquireRelease(
    runPg(bin, "pg_ctl", ["-D", data, "-o", serverOptions, "-l", logFile, "-w", "-t", "60", "start"]).pipe(
      Effect.mapError((error) => {
        const log = Fs.existsSync(logFile) ? Fs.readFileSync(logFile, "utf8") : ""
        return new Error(`${error.message}\n${log}`)
      })
    ),
    () => Effect.ignore(runPg(bin, "pg_ctl", ["-D", data, "-m", "immediate", "-w", "-t", "30", "stop"]))
  )
  return {
    host: "127.0.0.1",
    port,
    username: "postgres",
    database: "postgres",
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    logFile
  }
})

/** The `@effect/sql-pg` pool settings for a server (small pool, short connect timeout). */
export const pgConnection = (server: Postgres) => ({
  host: server.host,
  port: server.port,
  username: server.username,
  database: server.database,
  maxConnections: 4,
  connectTimeout: "10 seconds" as const
})

/**
 * One server for the test file that calls this (at its top level): started before its tests,
 * stopped after them. `running()` gives it, and throws when it did not start.
 */
export const postgresForFile = (): { readonly running: () => Postgres } => {
  const scope = Scope.makeUnsafe()
  let server: Postgres | undefined
  beforeAll(async () => {
    server = await Effect.runPromise(Scope.provide(startPostgres, scope))
  }, 60_000)
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)), 60_000)
  return {
    running: () => {
      if (server === undefined) throw new Error("the PostgreSQL server did not start")
      return server
    }
  }
}
