/**
 * The timeline page's server (`effect/http` on Node): `GET /<token>/` is the page of the
 * transcript as it is now; with `follow`, the transcript is read again as it grows and
 * `GET /<token>/events` sends the turns that changed as Server-Sent Events, which the page
 * applies. The token is random, made for each server and given in its address only: a local
 * process that finds the port gets no transcript.
 *
 * @since 0.2.0
 */
import * as NodeBuffer from "node:buffer"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Path from "node:path"
import { StringDecoder } from "node:string_decoder"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as ClaudeError from "../ClaudeError.ts"
import { describeCause, describeError } from "../internal/describeCause.ts"
import { writeOwnerOnly } from "../internal/ownerOnlyFile.ts"
import * as Timeline from "../Timeline.ts"
import * as Transcript from "../Transcript.ts"
import * as Page from "./page.ts"

/**
 * Options of {@link serve}.
 *
 * @since 0.2.0
 * @category options
 */
export interface ServeOptions {
  /** The transcript file (NDJSON, as `Transcript.toFile` writes it). */
  readonly path: string
  /** The port on 127.0.0.1; `0` (the default) takes a free one. */
  readonly port?: number | undefined
  /** Reads the transcript again as it grows and sends the changes to the open pages. */
  readonly follow?: boolean | undefined
  /** How often a followed transcript is looked at. Default 200 millis. */
  readonly pollInterval?: Duration.Input | undefined
}

/**
 * A served timeline: its URL (`http://127.0.0.1:<port>/<token>/`: the token is its only way in).
 *
 * @since 0.2.0
 * @category models
 */
export interface Served {
  readonly url: string
}

const invalid = (description: string) => ClaudeError.make(new ClaudeError.InvalidInput({ description }))

/** How many of the last bytes read a follower compares on each poll, to tell a file replaced. */
const SEEN_BYTES = 64

/**
 * Reads a transcript file and builds its timeline; fails with `InvalidInput` when the file
 * cannot be read or a line is not a transcript line. With `partial`, an unfinished last line
 * (no `\n` yet: the recorder is writing it) is left for later: `bytes` ends before it (a reader
 * going on from there decodes it once whole) and `rest` is its text so far. With `lenient`, a
 * line that is no transcript line is a problem item of the timeline, as under `--follow`.
 *
 * @since 0.2.0
 * @category reading
 */
export const load: (
  path: string,
  options?: { readonly partial?: boolean | undefined; readonly lenient?: boolean | undefined }
) => Effect.Effect<
  {
    readonly builder: Timeline.Builder
    readonly bytes: number
    readonly rest: string
    /** The file's identity (device and inode) and its last bytes up to `bytes`, read from one handle. */
    readonly identity: string
    readonly seen: Buffer
  },
  ClaudeError.ClaudeError
> =
  Effect.fn("Viewer.load")(function*(
    path: string,
    options?: { readonly partial?: boolean | undefined; readonly lenient?: boolean | undefined }
  ) {
    const { buffer, identity } = yield* Effect.tryPromise({
      try: async () => {
        const handle = await Fs.promises.open(path, "r")
        try {
          const stat = await handle.stat()
          return { buffer: await handle.readFile(), identity: `${stat.dev}:${stat.ino}` }
        } finally {
          await handle.close()
        }
      },
      catch: (error) => invalid(`cannot read the transcript ${path}: ${describeError(error)}`)
    })
    // In bytes: the unfinished line may end inside a character.
    const end = options?.partial === true ? buffer.lastIndexOf(0x0a) + 1 : buffer.length
    // Node's longest string: a file over it cannot be decoded (nor shown) in one piece.
    if (end > NodeBuffer.constants.MAX_STRING_LENGTH || buffer.length - end > NodeBuffer.constants.MAX_STRING_LENGTH) {
      return yield* Effect.fail(invalid(`the transcript ${path} is too large to show (${buffer.length} bytes)`))
    }
    const text = buffer.toString("utf8", 0, end)
    const builder = Timeline.make()
    if (options?.lenient === true) {
      for (const raw of text.split("\n")) if (raw.trim() !== "") pushRaw(builder, raw)
    } else {
      const lines = yield* Transcript.parse(text).pipe(
        Effect.mapError((error) =>
          invalid(`${path} is not a transcript: ${error.reason._tag === "InvalidInput" ? error.reason.description : error.message}`)
        )
      )
      for (const line of lines) builder.push(line)
    }
    return {
      builder,
      bytes: end,
      rest: buffer.toString("utf8", end),
      identity,
      seen: Buffer.from(buffer.subarray(Math.max(0, end - SEEN_BYTES), end))
    }
  })

/** One raw line into `builder`: a transcript line, or a problem item. Its changed turns. */
const pushRaw = (builder: Timeline.Builder, raw: string): ReadonlyArray<number> => {
  const line = decodeLine(raw)
  // A line the recorder is not the author of: shown as a problem (`load` refuses the file).
  return Option.isNone(line)
    ? builder.problem("not a transcript line (JSON {\"dir\",\"msg\"})", raw)
    : builder.push(line.value)
}

/**
 * {@link load} of a transcript read once, as a whole: a last line without its newline is read if
 * it is whole, else shown as a problem (the recorder stopped while writing it: what came before
 * is still worth reading).
 */
const loadWhole = (path: string) =>
  Effect.flatMap(load(path, { partial: true }), ({ builder, rest }) => {
    if (rest.trim() === "") return Effect.succeed(builder)
    let json: unknown
    try {
      json = JSON.parse(rest)
    } catch {
      builder.problem("the transcript's last line is cut off (no newline): the recorder stopped while writing it", rest)
      return Effect.succeed(builder)
    }
    // Whole JSON, only without its newline: a transcript line, or no transcript (as `load` says).
    const line = decodeTranscriptLine(json)
    if (Option.isNone(line)) return Effect.fail(invalid(`${path} is not a transcript: its last line is not a transcript line`))
    builder.push(line.value)
    return Effect.succeed(builder)
  })

/** Whether `a` and `b` are one file (either name, a link to it); `false` when `b` does not exist yet. */
const sameFile = (a: string, b: string): Effect.Effect<boolean> =>
  Effect.promise(async () => {
    const [x, y] = await Promise.all([Fs.promises.stat(a).catch(() => undefined), Fs.promises.stat(b).catch(() => undefined)])
    return x !== undefined && y !== undefined && x.dev === y.dev && x.ino === y.ino
  })

const decodeTranscriptLine = Schema.decodeUnknownOption(Transcript.Line)
const decodeLine = (raw: string): Option.Option<Transcript.Line> => {
  try {
    return decodeTranscriptLine(JSON.parse(raw))
  } catch {
    return Option.none()
  }
}

/** What an open page is sent: the parts that changed, or `reload` when the file was replaced. */
interface Update {
  readonly version: number
  readonly parts: ReadonlyArray<{ readonly id: string; readonly html: string }>
  readonly reload?: true
}

/** The followed transcript: its timeline, the versions of its turns, the pages' feed. */
const makeFollower = Effect.fnUntraced(function*(options: ServeOptions) {
  const path = options.path
  let state = yield* load(path, { partial: true })
  let version = 1
  /** This run of the viewer, in its pages: a page of another run is told to reload. */
  const epoch = Crypto.randomUUID()
  /** The version the file was last replaced at: a page from before it is told to reload. */
  let replacedAt = 0
  const changedAt = new Map<number, number>()
  const pubsub = yield* PubSub.unbounded<Update>()
  let offset = state.bytes
  // What tells the file read from the next: its identity, and its last bytes read.
  let identity = state.identity
  let seen = state.seen
  let decoder = new StringDecoder("utf8")
  let pending = ""
  /** Whether the last poll failed (its warning is given once). */
  let failing = false

  const parts = (indexes: Iterable<number>): Update["parts"] => {
    const timeline = state.builder.timeline
    const out: Array<{ id: string; html: string }> = [{ id: "turn-0", html: Page.renderHead(timeline) }]
    for (const index of indexes) {
      const turn = timeline.turns[index - 1]
      if (turn !== undefined) out.push({ id: `turn-${index}`, html: Page.renderTurn(turn) })
    }
    return out
  }

  const apply = (text: string): void => {
    pending += text
    const end = pending.lastIndexOf("\n")
    if (end === -1) return
    const complete = pending.slice(0, end)
    pending = pending.slice(end + 1)
    const changed = new Set<number>()
    for (const raw of complete.split("\n")) {
      if (raw.trim() === "") continue
      for (const index of pushRaw(state.builder, raw)) if (index > 0) changed.add(index)
    }
    version++
    for (const index of changed) changedAt.set(index, version)
    PubSub.publishUnsafe(pubsub, { version, parts: parts(changed) })
  }

  const poll = Effect.tryPromise({
    try: async () => {
      const handle = await Fs.promises.open(path, "r")
      try {
        // Another file now, or this one rewritten: shorter, or not ending as it did where it was
        // read to (moved over it, copied over it, recorded anew at that path).
        const stat = await handle.stat()
        if (stat.size < offset || `${stat.dev}:${stat.ino}` !== identity) return "replaced" as const
        if (seen.length > 0) {
          const before = Buffer.alloc(seen.length)
          const { bytesRead } = await handle.read(before, 0, before.length, offset - seen.length)
          if (bytesRead !== seen.length || !before.equals(seen)) return "replaced" as const
        }
        if (stat.size === offset) return ""
        const buffer = Buffer.alloc(stat.size - offset)
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset)
        offset += bytesRead
        // A copy: the chunk read is not kept alive by it.
        seen = Buffer.from(Buffer.concat([seen, buffer.subarray(Math.max(0, bytesRead - SEEN_BYTES), bytesRead)]).subarray(-SEEN_BYTES))
        return decoder.write(buffer.subarray(0, bytesRead))
      } finally {
        await handle.close()
      }
    },
    // Node's own error (its code, `ENOENT`, says why), for the warning.
    catch: (error) => error
  }).pipe(
    Effect.flatMap((text) => {
      if (text !== "replaced") return Effect.sync(() => text === "" ? undefined : apply(text))
      // Read as the lines appended are: one that is no transcript line is a problem item.
      return Effect.map(load(path, { partial: true, lenient: true }), (next) => {
        state = next
        offset = next.bytes
        identity = next.identity
        seen = next.seen
        pending = ""
        decoder = new StringDecoder("utf8")
        version++
        replacedAt = version
        changedAt.clear()
        PubSub.publishUnsafe(pubsub, { version, parts: [], reload: true })
      })
    }),
    Effect.tap(() =>
      Effect.suspend(() => {
        if (!failing) return Effect.void
        failing = false
        return Effect.logInfo(`the transcript ${path} can be read again`)
      })
    ),
    // Once while reads fail (the file removed, say), not on every poll: the reason, no stack.
    Effect.catchCause((cause) =>
      Effect.suspend(() => {
        if (failing) return Effect.void
        failing = true
        return Effect.logWarning(`the transcript ${path} cannot be read (${describeCause(cause)}); still trying`)
      })
    )
  )
  yield* poll.pipe(
    Effect.repeat(Schedule.spaced(Duration.fromInputUnsafe(options.pollInterval ?? "200 millis"))),
    Effect.forkScoped
  )

  return {
    page: () => Page.renderPage(state.builder.timeline, { title: Path.basename(path), follow: { version, epoch } }),
    /**
     * The updates after `since` for a page of this run (`pageEpoch`): the turns changed since then
     * at once, then each change. A page of another run (the viewer restarted), or from before the
     * file was replaced, is told to reload: its turns are not these.
     */
    events: (since: number, pageEpoch: string | undefined): Stream.Stream<Update> =>
      Stream.unwrap(Effect.gen(function*() {
        const subscription = yield* PubSub.subscribe(pubsub)
        const stale = pageEpoch !== epoch || since < replacedAt || since > version
        const missed: Array<number> = []
        for (const [index, at] of changedAt) if (at > since) missed.push(index)
        const catchUp: Update = stale
          ? { version, parts: [], reload: true }
          : { version, parts: parts(missed.sort((a, b) => a - b)) }
        return Stream.concat(Stream.succeed(catchUp), Stream.fromSubscription(subscription))
      }))
  }
})

const htmlResponse = (html: string) =>
  HttpServerResponse.text(html, {
    contentType: "text/html; charset=utf-8",
    headers: { "cache-control": "no-store", "x-content-type-options": "nosniff" }
  })

/** The version (`v`) and the run (`e`) of the page asking for `events`. */
const pageOf = (request: HttpServerRequest.HttpServerRequest): { readonly since: number; readonly epoch: string | undefined } => {
  const params = new URL(request.url, "http://127.0.0.1").searchParams
  const v = Number(params.get("v"))
  return { since: Number.isFinite(v) ? v : 0, epoch: params.get("e") ?? undefined }
}

/**
 * Only requests addressed to this machine by name are served: a page of another site that
 * points a host name of its own at 127.0.0.1 (DNS rebinding) gets 403, not the transcript.
 */
const local = (
  handler: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse>
) =>
(request: HttpServerRequest.HttpServerRequest) =>
  /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?$/.test(request.headers.host ?? "")
    ? handler(request)
    : Effect.succeed(HttpServerResponse.text("forbidden: not addressed to 127.0.0.1", { status: 403 }))

/**
 * A fresh secret for the viewer's address (128 random bits, base64url): the routes are under
 * `/<token>/`, so that another local user or container that finds the port gets no transcript.
 */
const makeToken = (): string => Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url")

/** What the port alone gets: no transcript, and the way to it. */
const withoutToken = local(() =>
  Effect.succeed(HttpServerResponse.text("forbidden: open the address the viewer printed (it carries a token)", { status: 403 }))
)

/** The routes under `/<token>/`: the page, and with `follow` its event stream (`events`, relative to the page). */
const routes = Effect.fnUntraced(function*(options: ServeOptions, token: string) {
  const root = HttpRouter.add("GET", "/", withoutToken)
  if (options.follow !== true) {
    const builder = yield* loadWhole(options.path)
    const html = Page.renderPage(builder.timeline, { title: Path.basename(options.path) })
    return Layer.mergeAll(root, HttpRouter.add("GET", `/${token}/`, local(() => Effect.succeed(htmlResponse(html)))))
  }
  const follower = yield* makeFollower(options)
  return Layer.mergeAll(
    root,
    HttpRouter.add("GET", `/${token}/`, local(() => Effect.sync(() => htmlResponse(follower.page())))),
    HttpRouter.add("GET", `/${token}/events`, local((request) =>
      Effect.succeed(HttpServerResponse.stream(
        follower.events(pageOf(request).since, pageOf(request).epoch).pipe(
          Stream.map((update) => `data: ${JSON.stringify(update)}\n\n`),
          Stream.encodeText
        ),
        { contentType: "text/event-stream", headers: { "cache-control": "no-store" } }
      ))))
  )
})

/**
 * Serves the timeline of the transcript at `options.path` on 127.0.0.1 until the scope closes.
 * Fails with `InvalidInput` when the transcript cannot be read or is not a transcript, and with
 * `InvalidInput` when the port cannot be listened on.
 *
 * @since 0.2.0
 * @category serving
 */
export const serve: (options: ServeOptions) => Effect.Effect<Served, ClaudeError.ClaudeError, Scope.Scope> = Effect.fn(
  "Viewer.serve"
)(function*(options: ServeOptions) {
  const port = options.port ?? 0
  // Node throws on a port out of range (a defect, not a failure): refused here instead.
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    return yield* invalid(`cannot serve on 127.0.0.1:${port}: a port is a whole number from 0 to 65535`)
  }
  const token = makeToken()
  const app = yield* routes(options, token)
  const server = NodeHttpServer.layer(() => Http.createServer(), {
    host: "127.0.0.1",
    port: options.port ?? 0,
    gracefulShutdownTimeout: "100 millis"
  })
  const context = yield* Layer.build(
    HttpRouter.serve(app, { disableLogger: true, disableListenLog: true }).pipe(Layer.provideMerge(server))
  ).pipe(Effect.mapError((error) => invalid(`cannot serve on 127.0.0.1:${options.port ?? 0}: ${describeError(error)}`)))
  const address = Context.get(context, HttpServer.HttpServer).address
  return { url: `${HttpServer.formatAddress(address)}/${token}/` }
})

/**
 * Writes the page of the transcript at `path` into `out`: one file, its CSS and script inline,
 * that opens offline. Fails with `InvalidInput` when the transcript cannot be read, and
 * `InvalidInput` when `out` cannot be written.
 *
 * @since 0.2.0
 * @category serving
 */
export const writeHtml: (path: string, out: string) => Effect.Effect<void, ClaudeError.ClaudeError> = Effect.fn(
  "Viewer.writeHtml"
)(function*(path: string, out: string) {
  // The page in place of the recording would lose the recording for good.
  if (yield* sameFile(path, out)) return yield* invalid(`--html ${out} is the transcript itself: name another file`)
  const builder = yield* loadWhole(path)
  const html = Page.renderPage(builder.timeline, { title: Path.basename(path) })
  yield* Effect.tryPromise({
    try: async () => {
      await Fs.promises.mkdir(Path.dirname(Path.resolve(out)), { recursive: true })
      // Readable by its owner only, as the transcript: an existing page is made so first.
      await writeOwnerOnly(out, html)
    },
    catch: (error) => invalid(`cannot write ${out}: ${describeError(error)}`)
  })
})
