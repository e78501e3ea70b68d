/**
 * Looking sessions up by `cwd` on the in-memory file system: the repository's git worktrees are
 * found from the files git keeps (`.git/worktrees/<name>/gitdir`, a worktree's `.git` file,
 * `commondir`), as the official SDK's `listSessions({ dir })` / `getSessionInfo(id, { dir })`
 * find them with `git worktree list` (found by a review). No process is started.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Path from "effect/Path"
import { worktreesOf } from "../src/internal/gitWorktrees.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"
import * as MemoryFs from "./support/memoryFileSystem.ts"

const W = "2c8d5b2f-3a4e-4d6c-9b7a-8f9a0b1c2d32"
const R = "1b7c4a1e-2f3d-4c5b-8a69-7e8f9a0b1c21"
const D = "3d9e6c3a-4b5f-4e7d-8c8b-9a0b1c2d3e43"

/** The memory file system, with `readFileString` (which it leaves out) over its files. */
const fileSystem = (memory: ReturnType<typeof MemoryFs.make>) =>
  Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (fs): FileSystem.FileSystem => ({
      ...fs,
      readFileString: (path) =>
        Effect.suspend(() => {
          const file = memory.state.files.get(path)
          return file === undefined ? fs.readFileString(path) : Effect.succeed(new TextDecoder().decode(file.data))
        })
    }))
  ).pipe(Layer.provideMerge(memory.layer))

/** A repository at /r/repo with a linked worktree at /r/wt, as `git worktree add` leaves them. */
const repository = (memory: ReturnType<typeof MemoryFs.make>) => {
  const { state } = memory
  MemoryFs.writeText(state, "/r/repo/.git/HEAD", "ref: refs/heads/main\n")
  state.dirs.add("/r/repo/.git/objects")
  state.dirs.add("/r/repo/.git/refs")
  MemoryFs.writeText(state, "/r/repo/.git/worktrees/wt/gitdir", "/r/wt/.git\n")
  MemoryFs.writeText(state, "/r/repo/.git/worktrees/wt/commondir", "../..\n")
  MemoryFs.writeText(state, "/r/repo/.git/worktrees/wt/HEAD", "ref: refs/heads/wt\n")
  MemoryFs.writeText(state, "/r/wt/.git", "gitdir: /r/repo/.git/worktrees/wt\n")
  state.dirs.add("/r/repo/src")
}

/** A session of `cwd` in the config directory /config, modified at `mtime`. */
const session = (memory: ReturnType<typeof MemoryFs.make>, cwd: string, sessionId: string, mtime: number) => {
  const path = `/config/projects/${Sessions.projectKey(cwd)}/${sessionId}.jsonl`
  MemoryFs.writeText(memory.state, path, JSON.stringify({
    type: "user", uuid: crypto.randomUUID(), parentUuid: null, sessionId,
    timestamp: "2026-01-01T00:00:00.000Z", cwd, message: { role: "user", content: `Hello from ${cwd}` }
  }) + "\n")
  memory.state.files.get(path)!.mtime = mtime
}

const withSessions = (memory: ReturnType<typeof MemoryFs.make>) =>
  Sessions.layer.pipe(
    Layer.provideMerge(SessionStore.layerDirectory("/config")),
    Layer.provideMerge(fileSystem(memory))
  )

const ids = (infos: ReadonlyArray<Sessions.SessionInfo>) => infos.map((s) => s.sessionId)

describe("Sessions lookups and git worktrees (in-memory file system)", () => {
  it.effect("from the repository, its worktree's sessions too; from the worktree, the repository's; includeWorktrees: false, one project", () => {
    const memory = MemoryFs.make()
    repository(memory)
    session(memory, "/r/repo", R, 1_000)
    session(memory, "/r/wt", W, 2_000)
    session(memory, "/r/elsewhere", D, 3_000)
    return Effect.gen(function*() {
      const sessions = yield* Sessions.Sessions
      assert.deepStrictEqual(ids(yield* sessions.list({ cwd: "/r/repo" })), [W, R])
      assert.deepStrictEqual(ids(yield* sessions.list({ cwd: "/r/wt" })), [W, R])
      assert.strictEqual((yield* sessions.info(W, { cwd: "/r/repo" })).sessionId, W)
      assert.strictEqual((yield* sessions.info(R, { cwd: "/r/wt" })).sessionId, R)
      // As the SDK: from a subdirectory, its own project and every worktree's.
      assert.deepStrictEqual(ids(yield* sessions.list({ cwd: "/r/repo/src" })), [W, R])

      assert.deepStrictEqual(ids(yield* sessions.list({ cwd: "/r/repo", includeWorktrees: false })), [R])
      assert.deepStrictEqual(ids(yield* sessions.list({ cwd: "/r/wt", includeWorktrees: false })), [W])
      const missing = yield* Effect.flip(sessions.info(W, { cwd: "/r/repo", includeWorktrees: false }))
      assert.strictEqual(missing.reason._tag, "SessionNotFound")

      // rename, tag, fork, delete look up the same way.
      yield* sessions.tag(W, "from-repo", { cwd: "/r/repo" })
      assert.strictEqual((yield* sessions.info(W)).tag, "from-repo")
      yield* sessions.delete(W, { cwd: "/r/repo" })
      assert.deepStrictEqual(ids(yield* sessions.list({ cwd: "/r/wt" })), [R])
    }).pipe(Effect.provide(withSessions(memory)))
  })

  it.effect("a session its own project holds is found without reading git's files; one in a worktree's, after", () => {
    const memory = MemoryFs.make()
    repository(memory)
    session(memory, "/r/repo", R, 1_000)
    session(memory, "/r/wt", W, 2_000)
    // Every call of the file system that names a path under a `.git`, counted.
    const gitPaths: Array<string> = []
    const counting = Layer.effect(
      FileSystem.FileSystem,
      Effect.map(FileSystem.FileSystem, (fs): FileSystem.FileSystem =>
        new Proxy(fs, {
          get: (target, key, receiver) => {
            const value: unknown = Reflect.get(target, key, receiver)
            if (typeof value !== "function") return value
            return (...args: Array<unknown>) => {
              for (const arg of args) if (typeof arg === "string" && arg.includes("/.git")) gitPaths.push(arg)
              return Reflect.apply(value, target, args)
            }
          }
        }))
    ).pipe(Layer.provideMerge(fileSystem(memory)))
    const layer = Sessions.layer.pipe(
      Layer.provideMerge(SessionStore.layerDirectory("/config")),
      Layer.provideMerge(counting)
    )
    return Effect.gen(function*() {
      const sessions = yield* Sessions.Sessions
      assert.strictEqual((yield* sessions.info(R, { cwd: "/r/repo" })).sessionId, R)
      yield* sessions.tag(R, "own", { cwd: "/r/repo" })
      assert.deepStrictEqual(gitPaths, [])
      assert.strictEqual((yield* sessions.info(W, { cwd: "/r/repo" })).sessionId, W)
      assert.isTrue(gitPaths.length > 0)
      const missing = yield* Effect.flip(sessions.info(D, { cwd: "/r/repo" }))
      assert.strictEqual(missing.reason._tag, "SessionNotFound")
      assert.include(missing.message, Sessions.projectKey("/r/wt"))
    }).pipe(Effect.provide(layer))
  })

  it.effect("a directory that is in no repository, or a broken one, has no worktrees: its own project, no error", () => {
    const memory = MemoryFs.make()
    repository(memory)
    // The worktree's .git file names a directory that is not there.
    MemoryFs.writeText(memory.state, "/r/wt/.git", "gitdir: /r/repo/.git/worktrees/gone\n")
    session(memory, "/r/repo", R, 1_000)
    session(memory, "/r/wt", W, 2_000)
    session(memory, "/r/elsewhere", D, 3_000)
    return Effect.gen(function*() {
      const sessions = yield* Sessions.Sessions
      assert.deepStrictEqual(ids(yield* sessions.list({ cwd: "/r/elsewhere" })), [D])
      assert.deepStrictEqual(ids(yield* sessions.list({ cwd: "/r/wt" })), [W])
    }).pipe(Effect.provide(withSessions(memory)))
  })
})

describe("the worktrees of a repository, from git's files (what `git worktree list` lists)", () => {
  const worktrees = (memory: ReturnType<typeof MemoryFs.make>, dir: string) =>
    Effect.gen(function*() {
      return yield* worktreesOf(yield* FileSystem.FileSystem, yield* Path.Path, dir)
    }).pipe(Effect.provide(fileSystem(memory)))

  /** A directory and its parents. */
  const directory = (memory: ReturnType<typeof MemoryFs.make>, dir: string) => {
    for (let at = dir; at !== "/"; at = at.slice(0, at.lastIndexOf("/")) || "/") memory.state.dirs.add(at)
  }

  /** A git directory: HEAD, objects/ and refs/. */
  const gitDir = (memory: ReturnType<typeof MemoryFs.make>, dir: string) => {
    MemoryFs.writeText(memory.state, `${dir}/HEAD`, "ref: refs/heads/main\n")
    directory(memory, `${dir}/objects`)
    directory(memory, `${dir}/refs`)
  }

  /** A linked worktree `name` at `at`; `relative` as git 2.48's `--relative-paths` writes it. */
  const linked = (memory: ReturnType<typeof MemoryFs.make>, common: string, name: string, at: string, gitdir = `${at}/.git`, dotGit = `${common}/worktrees/${name}`) => {
    MemoryFs.writeText(memory.state, `${common}/worktrees/${name}/gitdir`, `${gitdir}\n`)
    MemoryFs.writeText(memory.state, `${common}/worktrees/${name}/commondir`, "../..\n")
    MemoryFs.writeText(memory.state, `${common}/worktrees/${name}/HEAD`, "0123456789abcdef0123456789abcdef01234567\n")
    MemoryFs.writeText(memory.state, `${at}/.git`, `gitdir: ${dotGit}\n`)
  }

  it.effect("from the repository, a subdirectory, a worktree or inside one: the main worktree first, then the linked ones by path", () => {
    const memory = MemoryFs.make()
    gitDir(memory, "/r/repo/.git")
    linked(memory, "/r/repo/.git", "zz", "/r/zz")
    linked(memory, "/r/repo/.git", "aa", "/r/aa")
    // A worktree whose directory is gone is still listed (git lists it as prunable).
    MemoryFs.writeText(memory.state, "/r/repo/.git/worktrees/gone/gitdir", "/r/gone/.git\n")
    // An admin directory whose gitdir file is empty is not.
    MemoryFs.writeText(memory.state, "/r/repo/.git/worktrees/empty/gitdir", "")
    directory(memory, "/r/repo/src/deep")
    directory(memory, "/r/aa/lib")
    return Effect.gen(function*() {
      for (const dir of ["/r/repo", "/r/repo/src/deep", "/r/zz", "/r/aa/lib"]) {
        assert.deepStrictEqual(yield* worktrees(memory, dir), ["/r/repo", "/r/aa", "/r/gone", "/r/zz"], dir)
      }
    })
  })

  it.effect("relative paths (git 2.48 --relative-paths), a bare repository, a .git directory that is no repository", () => {
    const memory = MemoryFs.make()
    gitDir(memory, "/r/repo/.git")
    // From /r/repo/.git/worktrees/rel up to /r (four levels), as git 2.48 writes it.
    linked(memory, "/r/repo/.git", "rel", "/r/rel", `${"../".repeat(4)}rel/.git`, "../repo/.git/worktrees/rel")
    gitDir(memory, "/r/bare.git")
    linked(memory, "/r/bare.git", "bw", "/r/bw")
    // Not a git directory (no HEAD): git goes on up, to the repository above.
    directory(memory, "/r/repo/vendor/.git")
    return Effect.gen(function*() {
      assert.deepStrictEqual(yield* worktrees(memory, "/r/rel"), ["/r/repo", "/r/rel"])
      assert.deepStrictEqual(yield* worktrees(memory, "/r/repo"), ["/r/repo", "/r/rel"])
      assert.deepStrictEqual(yield* worktrees(memory, "/r/bare.git"), ["/r/bare.git", "/r/bw"])
      assert.deepStrictEqual(yield* worktrees(memory, "/r/bw"), ["/r/bare.git", "/r/bw"])
      assert.deepStrictEqual(yield* worktrees(memory, "/r/repo/vendor"), ["/r/repo", "/r/rel"])
    })
  })

  it.effect("none: in no repository, a .git file that is not `gitdir: <a git directory>`, a HEAD that is no ref", () => {
    const memory = MemoryFs.make()
    directory(memory, "/r/plain")
    MemoryFs.writeText(memory.state, "/r/badfile/.git", "not a gitdir line\n")
    MemoryFs.writeText(memory.state, "/r/nowhere/.git", "gitdir: /r/missing\n")
    gitDir(memory, "/r/badhead/.git")
    MemoryFs.writeText(memory.state, "/r/badhead/.git/HEAD", "garbage\n")
    return Effect.gen(function*() {
      for (const dir of ["/r/plain", "/r/badfile", "/r/nowhere", "/r/badhead", "/r/not-there"]) {
        assert.deepStrictEqual(yield* worktrees(memory, dir), [], dir)
      }
    })
  })
})
