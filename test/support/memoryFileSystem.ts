/**
 * An in-memory `FileSystem` (POSIX paths) with what the directory session store uses: directories,
 * files with append, stat, streaming reads, rename, remove. Unit tests run
 * `SessionStore.layerDirectory` on it.
 */
import * as ByteSize from "effect/ByteSize"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as PlatformError from "effect/PlatformError"
import * as Stream from "effect/Stream"

export interface MemoryFiles {
  readonly files: Map<string, { data: Uint8Array; mtime: number }>
  readonly dirs: Set<string>
}

const parentOf = (path: string): string => {
  const i = path.lastIndexOf("/")
  return i <= 0 ? "/" : path.slice(0, i)
}

const error = (tag: "NotFound" | "AlreadyExists" | "BadResource", method: string, path: string) =>
  PlatformError.systemError({ module: "FileSystem", method, _tag: tag, pathOrDescriptor: path })

const info = (type: FileSystem.File.Type, size: number, mtime: number): FileSystem.File.Info => ({
  type,
  mtime: Option.some(new Date(mtime)),
  atime: Option.none(),
  birthtime: Option.none(),
  dev: 0n,
  ino: Option.none(),
  mode: 0o600,
  nlink: Option.none(),
  uid: Option.none(),
  gid: Option.none(),
  rdev: Option.none(),
  size: ByteSize.bytes(size),
  blksize: Option.none(),
  blocks: Option.none()
})

/** A fresh in-memory file system (its state, and the FileSystem and Path layer over it). */
export const make = (): { readonly state: MemoryFiles; readonly layer: Layer.Layer<FileSystem.FileSystem | Path.Path> } => {
  const state: MemoryFiles = { files: new Map(), dirs: new Set(["/"]) }
  let clock = 1_700_000_000_000
  const tick = () => ++clock
  const mkdirp = (path: string) => {
    for (let p = path; !state.dirs.has(p); p = parentOf(p)) state.dirs.add(p)
  }
  const fs = FileSystem.makeNoop({
    exists: (path) => Effect.sync(() => state.files.has(path) || state.dirs.has(path)),
    makeDirectory: (path) => Effect.sync(() => mkdirp(path)),
    readDirectory: (path, options) =>
      Effect.suspend(() => {
        if (!state.dirs.has(path)) return Effect.fail(error("NotFound", "readDirectory", path))
        const prefix = path === "/" ? "/" : `${path}/`
        const all = [...state.files.keys(), ...state.dirs].filter((p) => p.startsWith(prefix) && p !== path)
        const names = all.map((p) => p.slice(prefix.length)).filter((n) => options?.recursive === true || !n.includes("/"))
        return Effect.succeed([...new Set(names)])
      }),
    stat: (path) =>
      Effect.suspend(() => {
        const file = state.files.get(path)
        if (file !== undefined) return Effect.succeed(info("File", file.data.length, file.mtime))
        if (state.dirs.has(path)) return Effect.succeed(info("Directory", 0, clock))
        return Effect.fail(error("NotFound", "stat", path))
      }),
    writeFile: (path, data, options) =>
      Effect.suspend(() => {
        if (!state.dirs.has(parentOf(path))) return Effect.fail(error("NotFound", "writeFile", path))
        const before = state.files.get(path)
        if (options?.flag === "wx" && before !== undefined) return Effect.fail(error("AlreadyExists", "writeFile", path))
        const appended = options?.flag === "a" && before !== undefined
          ? Uint8Array.from([...before.data, ...data])
          : Uint8Array.from(data)
        state.files.set(path, { data: appended, mtime: tick() })
        return Effect.void
      }),
    stream: (path, options) =>
      Stream.suspend(() => {
        const file = state.files.get(path)
        if (file === undefined) return Stream.fail(error("NotFound", "stream", path))
        const size: number = options?.chunkSize ?? 64 * 1024
        const offset: number = options?.offset === undefined ? 0 : Number(options.offset)
        const chunks: Array<Uint8Array> = []
        for (let i = offset; i < file.data.length; i += size) chunks.push(file.data.slice(i, i + size))
        return Stream.fromIterable(chunks)
      }),
    rename: (from, to) =>
      Effect.suspend(() => {
        const file = state.files.get(from)
        if (file === undefined) return Effect.fail(error("NotFound", "rename", from))
        state.files.delete(from)
        state.files.set(to, { data: file.data, mtime: tick() })
        return Effect.void
      }),
    remove: (path, options) =>
      Effect.suspend(() => {
        if (state.files.delete(path)) return Effect.void
        if (state.dirs.has(path)) {
          for (const p of [...state.files.keys()]) if (p.startsWith(`${path}/`)) state.files.delete(p)
          for (const p of [...state.dirs]) if (p === path || p.startsWith(`${path}/`)) state.dirs.delete(p)
          return Effect.void
        }
        return options?.force === true ? Effect.void : Effect.fail(error("NotFound", "remove", path))
      }),
    realPath: (path) => Effect.succeed(path)
  })
  return { state, layer: Layer.mergeAll(Layer.succeed(FileSystem.FileSystem, fs), Path.layer) }
}

/** Writes a file (making its directories), as the CLI would have. */
export const writeText = (state: MemoryFiles, path: string, text: string): void => {
  for (let p = parentOf(path); !state.dirs.has(p); p = parentOf(p)) state.dirs.add(p)
  state.files.set(path, { data: new TextEncoder().encode(text), mtime: 1 })
}
