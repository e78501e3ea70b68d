/**
 * What every example shares: the real process transport, and a fake model for the real CLI
 * (the pinned `node_modules/.bin/claude`) in a fresh HOME and working directory, so that the
 * examples run with no network and no credentials and never touch your own `~/.claude`.
 *
 * In your own program you would only keep `processLayer` and pass your own options.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Url from "node:url"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Claude from "../src/Claude.ts"
import * as ClaudeNode from "../src/ClaudeNode.ts"
import type * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"

/** Sessions spawn the real `claude` process, through Node's child process spawner: `ClaudeNode.layer`. */
export const processLayer = ClaudeNode.layer

/**
 * True when the module of `meta` is the program node was started with: `import.meta.main`, with a
 * fallback for Node 22 releases that lack it.
 */
export const isMain = (meta: ImportMeta): boolean =>
  (meta as { readonly main?: boolean }).main === true ||
  (process.argv[1] !== undefined && Path.resolve(process.argv[1]) === Url.fileURLToPath(meta.url))

/** The pinned CLI of this repository (the `@anthropic-ai/claude-code` devDependency). */
export const cliPath: string = Path.resolve(import.meta.dirname, "../node_modules/.bin/claude")

/** True when this process runs as root (the CLI then wants `IS_SANDBOX=1` for bypassPermissions). */
export const isRoot: boolean = typeof process.getuid === "function" && process.getuid() === 0

/** A fresh temporary directory, removed with everything in it when the scope closes. */
export const tempDir = (prefix: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), prefix))),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )

/** A fake model, and session options pointing the real CLI at it (`Offline.Setup`). */
export type FakeSetup = Offline.Setup

/**
 * Starts a fake Anthropic Messages API on 127.0.0.1 playing `script`, and gives the options of a
 * session whose CLI (the pinned one) talks to it, in a fresh HOME and cwd: `Offline.make` from
 * the testing kit. `IS_SANDBOX=1` is set only as root, for `bypassPermissions`.
 */
export const fakeModel = (
  script: FakeModel.Script,
  extra: Partial<Claude.SessionOptions> = {}
): Effect.Effect<FakeSetup, never, Scope.Scope> => Offline.make(script, { executable: cliPath, ...extra })

/** The text of every `text_delta` in these events, joined: what was streamed. */
export const streamedText = (events: ReadonlyArray<Claude.Event>): string =>
  events.flatMap((event) => {
    if (event.type !== "stream_event") return []
    const e = event.event
    return e.type === "content_block_delta" && e.delta.type === "text_delta" ? [e.delta.text] : []
  }).join("")
