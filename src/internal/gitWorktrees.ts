/**
 * The working trees of the git repository a directory is in, read from the files git keeps,
 * without running git: what `git worktree list --porcelain` lists (the official SDK runs it for
 * `listSessions({ dir })` and the other lookups by directory), by git's own rules:
 *
 * - the repository is found as git finds it: from the directory up, the first `.git` that is a
 *   git directory, or a `.git` file (`gitdir: <path>`, relative to the file's directory) whose
 *   target is one (a `.git` file whose target is not is an error: git stops there), or a
 *   directory that is itself a git directory (a bare repository); the walk stops at a mount point;
 * - a git directory has a valid `HEAD` (`ref: refs/...` or an object id) and, in its common
 *   directory, `objects/` and `refs/`;
 * - its common directory is the one its `commondir` file names (relative to it), else itself;
 * - the main worktree is the common directory's real path without its `/.git`; the linked ones
 *   are the paths their `<common>/worktrees/<name>/gitdir` files hold without `/.git` (a relative
 *   one from `<common>/worktrees/<name>`), sorted, the main one first.
 *
 * Anything that cannot be read means no worktrees, as the SDK's failed `git` means none. What
 * only a `git` process would do differently: it honours `GIT_DIR`, `GIT_COMMON_DIR`,
 * `GIT_CEILING_DIRECTORIES` and `GIT_DISCOVERY_ACROSS_FILESYSTEM`, and refuses a repository
 * another user owns (`safe.directory`); neither is a reason to hide the sessions of a repository
 * whose files can be read.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"

/** No repository here, or none git would use. */
class NoRepository extends Data.TaggedError("NoRepository")<{}> {}

const readText = (fs: FileSystem.FileSystem, file: string) => fs.readFileString(file).pipe(Effect.option)

const isDirectory = (fs: FileSystem.FileSystem, dir: string) =>
  fs.stat(dir).pipe(Effect.map((info) => info.type === "Directory"), Effect.orElseSucceed(() => false))

/** git's HEAD check: a symbolic ref under `refs/`, or an object id (SHA-1 or SHA-256, hex). */
const validHead = (text: string): boolean => /^ref:\s*refs\//.test(text) || /^[0-9a-fA-F]{40}/.test(text)

const withoutLineEnds = (text: string) => text.replace(/[\r\n]+$/, "")

/**
 * The common directory of a git directory (the real path): the one its `commondir` file names,
 * else itself. A `commondir` that cannot be read is an error, as for git.
 */
const commonDirOf = Effect.fnUntraced(function*(fs: FileSystem.FileSystem, path: Path.Path, gitDir: string) {
  const file = path.join(gitDir, "commondir")
  if (!(yield* fs.exists(file).pipe(Effect.orElseSucceed(() => false)))) return gitDir
  const text = withoutLineEnds(yield* fs.readFileString(file))
  if (text === "") return yield* Effect.fail(new NoRepository())
  return yield* fs.realPath(path.isAbsolute(text) ? text : path.join(gitDir, text))
})

/** git's `is_git_directory`. */
const isGitDirectory = Effect.fnUntraced(function*(fs: FileSystem.FileSystem, path: Path.Path, dir: string) {
  const head = yield* readText(fs, path.join(dir, "HEAD"))
  if (Option.isNone(head) || !validHead(head.value)) return false
  const common = yield* commonDirOf(fs, path, dir)
  return (yield* isDirectory(fs, path.join(common, "objects"))) && (yield* isDirectory(fs, path.join(common, "refs")))
}, Effect.orElseSucceed(() => false))

const deviceOf = (fs: FileSystem.FileSystem, dir: string) => Effect.map(fs.stat(dir), (info) => info.dev)

/** The git directory of the repository `dir` is in (git's discovery). */
const gitDirOf = Effect.fnUntraced(function*(fs: FileSystem.FileSystem, path: Path.Path, dir: string) {
  const device = yield* deviceOf(fs, dir)
  for (let at = dir;;) {
    const dotGit = path.join(at, ".git")
    const info = yield* fs.stat(dotGit).pipe(Effect.option)
    if (Option.isSome(info)) {
      if (info.value.type === "File") {
        // A .git file settles it: its target is the repository, or there is none.
        const text = withoutLineEnds(yield* fs.readFileString(dotGit))
        if (!text.startsWith("gitdir: ")) return yield* Effect.fail(new NoRepository())
        const target = text.slice("gitdir: ".length)
        const gitDir = path.isAbsolute(target) ? target : path.join(at, target)
        if (!(yield* isGitDirectory(fs, path, gitDir))) return yield* Effect.fail(new NoRepository())
        return yield* fs.realPath(gitDir)
      }
      if (yield* isGitDirectory(fs, path, dotGit)) return dotGit
    }
    if (yield* isGitDirectory(fs, path, at)) return at
    const parent = path.dirname(at)
    if (parent === at) return yield* Effect.fail(new NoRepository())
    // git stays on one file system unless told otherwise.
    if ((yield* deviceOf(fs, parent)) !== device) return yield* Effect.fail(new NoRepository())
    at = parent
  }
})

/** The path a linked worktree's `gitdir` file holds, `undefined` when it holds none. */
const linkedWorktree = Effect.fnUntraced(function*(fs: FileSystem.FileSystem, path: Path.Path, adminDir: string) {
  const text = (yield* readText(fs, path.join(adminDir, "gitdir"))).pipe(Option.map((t) => t.trimEnd()))
  if (Option.isNone(text) || text.value === "") return undefined
  const worktree = text.value.endsWith("/.git") ? text.value.slice(0, -"/.git".length) : text.value
  if (path.isAbsolute(worktree)) return worktree
  // A relative path (git 2.48's --relative-paths) is from the worktree's admin directory.
  const joined = path.join(adminDir, worktree)
  return yield* fs.realPath(joined).pipe(Effect.orElseSucceed(() => path.resolve(joined)))
})

/**
 * The worktrees of the repository the directory `dir` (a real, absolute path) is in, as
 * `git worktree list` lists them: the main one first, then the linked ones by path. Empty when
 * `dir` is in no repository, or its files cannot be read.
 */
export const worktreesOf: (
  fs: FileSystem.FileSystem,
  path: Path.Path,
  dir: string
) => Effect.Effect<ReadonlyArray<string>> = Effect.fnUntraced(function*(fs: FileSystem.FileSystem, path: Path.Path, dir: string) {
  const gitDir = yield* gitDirOf(fs, path, dir)
  const common = yield* fs.realPath(yield* commonDirOf(fs, path, gitDir))
  const main = common.endsWith("/.git") ? common.slice(0, -"/.git".length) : common
  const adminDirs = path.join(common, "worktrees")
  const names = yield* fs.readDirectory(adminDirs).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))
  const linked: Array<string> = []
  for (const name of names) {
    const worktree = yield* linkedWorktree(fs, path, path.join(adminDirs, name))
    if (worktree !== undefined) linked.push(worktree)
  }
  linked.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  return [main, ...linked]
}, Effect.orElseSucceed((): ReadonlyArray<string> => []))
