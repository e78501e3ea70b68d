/**
 * Looking sessions up by `cwd` searches the repository's git worktrees too, as the official SDK's
 * `listSessions({ dir })` and `getSessionInfo(id, { dir })` do (found by a review); with
 * `includeWorktrees: false` only the project of `cwd` itself.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"
import { makeTempDir } from "./support/tempDir.ts"
import { withEnv } from "./support/env.ts"

/** `CLAUDE_CONFIG_DIR` for the SDK's functions while the scope is open; the previous value after. */
const configDirForSdk = (dir: string) => withEnv("CLAUDE_CONFIG_DIR", dir)

describe("Sessions and git worktrees", () => {
  it.live("a session run in a worktree of the repository is listed and found from the repository's directory, as the SDK's listSessions({ dir }) does", () =>
    Effect.gen(function*() {
      const root = Fs.realpathSync(yield* makeTempDir("ecc-worktree-"))
      const repo = Path.join(root, "repo")
      const worktree = Path.join(root, "wt")
      Fs.mkdirSync(repo)
      const git = (cwd: string, ...args: Array<string>) =>
        ChildProcess.execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd, stdio: "pipe" })
      git(repo, "init", "-q")
      git(repo, "commit", "-q", "--allow-empty", "-m", "init")
      git(repo, "worktree", "add", "-q", worktree)
      const configDir = Path.join(root, "config")
      const sessionId = "8f0c5a57-8a9e-4b8a-9b77-0d7c2d6f1a10"
      const projectDir = Path.join(configDir, "projects", Sessions.projectKey(worktree))
      Fs.mkdirSync(projectDir, { recursive: true })
      Fs.writeFileSync(Path.join(projectDir, `${sessionId}.jsonl`), JSON.stringify({
        type: "user", uuid: "0d3c8a8e-4a43-4c55-9a3a-0a3b7f1d2e01", parentUuid: null, sessionId,
        timestamp: "2026-01-01T00:00:00.000Z", cwd: worktree, message: { role: "user", content: "Hello from the worktree" }
      }) + "\n")

      yield* configDirForSdk(configDir)
      const sdk = yield* Effect.promise(() => import("@anthropic-ai/claude-agent-sdk"))
      const theirs = yield* Effect.promise(() => sdk.listSessions({ dir: repo }))
      assert.deepStrictEqual(theirs.map((s) => s.sessionId), [sessionId])
      const theirInfo = yield* Effect.promise(() => sdk.getSessionInfo(sessionId, { dir: repo }))
      assert.strictEqual(theirInfo?.sessionId, sessionId)

      const sessions = yield* Sessions.Sessions.pipe(Effect.provide(Sessions.layer.pipe(
        Layer.provideMerge(SessionStore.layerDirectory(configDir)),
        Layer.provideMerge(NodeServices.layer)
      )))
      const ours = yield* sessions.list({ cwd: repo })
      assert.deepStrictEqual(ours.map((s) => s.sessionId), [sessionId])   // fails: []
      const info = yield* sessions.info(sessionId, { cwd: repo })
      assert.strictEqual(info.sessionId, sessionId)
    }).pipe(Effect.scoped))

  it.live("from a worktree (or a subdirectory) the main repository's sessions are found too, as by the SDK; includeWorktrees: false keeps to the one project", () =>
    Effect.gen(function*() {
      const root = Fs.realpathSync(yield* makeTempDir("ecc-worktree-"))
      const repo = Path.join(root, "repo")
      const worktree = Path.join(root, "wt")
      const sub = Path.join(repo, "sub")
      Fs.mkdirSync(sub, { recursive: true })
      const git = (cwd: string, ...args: Array<string>) =>
        ChildProcess.execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd, stdio: "pipe" })
      git(repo, "init", "-q")
      git(repo, "commit", "-q", "--allow-empty", "-m", "init")
      git(repo, "worktree", "add", "-q", worktree)
      const configDir = Path.join(root, "config")
      const write = (cwd: string, sessionId: string, text: string, mtime: number) => {
        const dir = Path.join(configDir, "projects", Sessions.projectKey(cwd))
        Fs.mkdirSync(dir, { recursive: true })
        const file = Path.join(dir, `${sessionId}.jsonl`)
        Fs.writeFileSync(file, JSON.stringify({
          type: "user", uuid: crypto.randomUUID(), parentUuid: null, sessionId,
          timestamp: "2026-01-01T00:00:00.000Z", cwd, message: { role: "user", content: text }
        }) + "\n")
        Fs.utimesSync(file, mtime, mtime)
      }
      const inRepo = "1b7c4a1e-2f3d-4c5b-8a69-7e8f9a0b1c21"
      const inWorktree = "2c8d5b2f-3a4e-4d6c-9b7a-8f9a0b1c2d32"
      const inSub = "3d9e6c3a-4b5f-4e7d-8c8b-9a0b1c2d3e43"
      write(repo, inRepo, "Hello from the repository", 1_800_000_000)
      write(worktree, inWorktree, "Hello from the worktree", 1_800_000_100)
      write(sub, inSub, "Hello from a subdirectory", 1_800_000_200)

      yield* configDirForSdk(configDir)
      const sdk = yield* Effect.promise(() => import("@anthropic-ai/claude-agent-sdk"))
      const sessions = yield* Sessions.Sessions.pipe(Effect.provide(Sessions.layer.pipe(
        Layer.provideMerge(SessionStore.layerDirectory(configDir)),
        Layer.provideMerge(NodeServices.layer)
      )))
      const ids = (infos: ReadonlyArray<{ readonly sessionId: string }>) => infos.map((s) => s.sessionId)

      // From the worktree: its own sessions and the main repository's.
      const fromWorktree = ids(yield* Effect.promise(() => sdk.listSessions({ dir: worktree })))
      assert.deepStrictEqual(fromWorktree, [inWorktree, inRepo])
      assert.deepStrictEqual(ids(yield* sessions.list({ cwd: worktree })), fromWorktree)
      assert.strictEqual((yield* Effect.promise(() => sdk.getSessionInfo(inRepo, { dir: worktree })))?.sessionId, inRepo)
      assert.strictEqual((yield* sessions.info(inRepo, { cwd: worktree })).sessionId, inRepo)

      // From a subdirectory of the repository: its own project and every worktree's.
      const fromSub = ids(yield* Effect.promise(() => sdk.listSessions({ dir: sub })))
      assert.deepStrictEqual(fromSub, [inSub, inWorktree, inRepo])
      assert.deepStrictEqual(ids(yield* sessions.list({ cwd: sub })), fromSub)

      // includeWorktrees: false, the project of cwd alone.
      const alone = ids(yield* Effect.promise(() => sdk.listSessions({ dir: repo, includeWorktrees: false })))
      assert.deepStrictEqual(alone, [inRepo])
      assert.deepStrictEqual(ids(yield* sessions.list({ cwd: repo, includeWorktrees: false })), alone)
      const missing = yield* Effect.flip(sessions.info(inWorktree, { cwd: repo, includeWorktrees: false }))
      assert.strictEqual(missing.reason._tag, "SessionNotFound")

      // The other operations look up the same way.
      yield* sessions.rename(inWorktree, "Renamed from the repository", { cwd: repo })
      assert.strictEqual((yield* sessions.info(inWorktree)).customTitle, "Renamed from the repository")
    }).pipe(Effect.scoped))
})
