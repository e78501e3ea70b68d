/**
 * Transcripts: recording (redaction, a failing or stuck sink never hurts the session), the
 * recorded files in testdata/, and replay (matching, id rewriting, mismatches).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Protocol from "../src/Protocol.ts"
import * as Transcript from "../src/Transcript.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Replay from "../src/testing/Replay.ts"
import { transcriptsDir } from "./scenarios.ts"

const EMAIL = "someone@example.com"

const tempFile = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-transcript-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
).pipe(Effect.map((dir) => Path.join(dir, "t.ndjson")))

const failureReason = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  assert.isTrue(Exit.isFailure(exit), "expected a failure")
  const fail = (exit as Exit.Failure<A, ClaudeError.ClaudeError>).cause.reasons.find((r) => r._tag === "Fail")
  assert.isDefined(fail, "expected a typed failure")
  return (fail as unknown as { error: ClaudeError.ClaudeError }).error.reason
}

/** A CLI that answers initialize only after it has read the first user turn, with an account e-mail. */
const emailCli = FakeCli.layer((cli) =>
  Effect.gen(function*() {
    const initialize = yield* cli.nextMatching((m) => m.type === "control_request")
    const user = yield* cli.nextMatching((m) => m.type === "user")
    yield* cli.emit(FakeCli.success(initialize, {
      commands: [],
      agents: [],
      output_style: "default",
      available_output_styles: ["default"],
      models: [],
      account: { email: EMAIL, tokenSource: "none", apiProvider: "firstParty" }
    }))
    const text = JSON.stringify((user.message as { content: unknown }).content)
    for (const line of FakeCli.textTurn({ sessionId: "s-1", text: `Hello ${EMAIL}, you said ${text}` })) yield* cli.emit(line)
    const second = yield* cli.nextMatching((m) => m.type === "user")
    void second
    for (const line of FakeCli.textTurn({ sessionId: "s-1", text: "bye", totalCostUsd: 0.002 })) yield* cli.emit(line)
    return yield* Effect.exit(cli.next).pipe(Effect.as(0))
  })
)

describe("Transcript recording", { timeout: 30_000 }, () => {
  it.live("redacts the account e-mail everywhere, in lines before and after the initialize answer", () =>
    Effect.gen(function*() {
      const path = yield* tempFile
      yield* Effect.scoped(Effect.gen(function*() {
        const recorder = yield* Transcript.toFile(path)
        const session = yield* Claude.open({ transcript: recorder })
        // Written before the initialize answer arrives (the fake answers only after reading it).
        const first = yield* session.run(`I am ${EMAIL}`)
        assert.include(String(first.result), EMAIL) // the session itself sees the real text
        yield* session.run(`write to ${EMAIL} again`)
      })).pipe(Effect.provide(emailCli))
      const text = Fs.readFileSync(path, "utf8")
      assert.notInclude(text, EMAIL)
      assert.notInclude(text, "someone@")
      const lines = text.trim().split("\n").map((l) => JSON.parse(l) as Transcript.Line)
      const answer = lines.find((l) => (l.msg as { type?: string }).type === "control_response")!
      const account = ((answer.msg as { response: { response: { account: { email: string } } } }).response.response).account
      assert.strictEqual(account.email, "[redacted]")
      const users = lines.filter((l) => l.dir === "send" && (l.msg as { type?: string }).type === "user")
      assert.deepStrictEqual(users.map((l) => (l.msg as { message: { content: unknown } }).message.content), [
        "I am [redacted]",
        "write to [redacted] again"
      ])
      const assistant = lines.find((l) => l.dir === "recv" && (l.msg as { type?: string }).type === "assistant")!
      assert.include(JSON.stringify(assistant.msg), "Hello [redacted], you said")
      // One line per message, both ways, in order, and no stream_event.
      assert.deepStrictEqual(lines[0]!.dir, "send")
      assert.isFalse(lines.some((l) => (l.msg as { type?: string }).type === "stream_event"))
      assert.strictEqual(lines.filter((l) => (l.msg as { type?: string }).type === "result").length, 2)
    }))

  it.live("a failing sink gives TranscriptFailed, logged, and the session completes its turn", () =>
    Effect.gen(function*() {
      const { recorder, result } = yield* Effect.scoped(Effect.gen(function*() {
        const recorder = yield* Transcript.toSink(Sink.forEach((_: string) => Effect.fail(new Error("disk full"))))
        const session = yield* Claude.open({ transcript: recorder })
        const result = yield* session.run("hi")
        const second = yield* session.run("again")
        assert.strictEqual(second.result, "echo: again")
        return { recorder, result }
      })).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({}))))
      assert.strictEqual(result.result, "echo: hi")
      const failure = yield* recorder.failure
      assert.isTrue(Option.isSome(failure))
      const reason = Option.getOrThrow(failure).reason
      assert.strictEqual(reason._tag, "TranscriptFailed")
      assert.include((reason as ClaudeError.TranscriptFailed).description, "disk full")
    }))

  it.live("a sink failure without a message names its cause; one JSON cannot write (a cycle) still gives TranscriptFailed", () =>
    Effect.gen(function*() {
      const cyclic: Record<string, unknown> = { reason: "a cycle" }
      cyclic.self = cyclic
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [new Error("", { cause: new Error("EPIPE: broken pipe") }), "EPIPE: broken pipe"],
        [cyclic, "an object with keys reason, self"]
      ]
      for (const [failure, expected] of cases) {
        const recorder = yield* Effect.scoped(Effect.gen(function*() {
          const recorder = yield* Transcript.toSink(Sink.forEach((_: string) => Effect.fail(failure)))
          const session = yield* Claude.open({ transcript: recorder })
          assert.strictEqual((yield* session.run("hi")).result, "echo: hi")
          return recorder
        })).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({}))))
        const reason = Option.getOrThrow(yield* recorder.failure).reason
        assert.strictEqual(reason._tag, "TranscriptFailed")
        assert.include((reason as ClaudeError.TranscriptFailed).description, expected)
      }
    }))

  it.live("a sink that never finishes a write blocks neither turns nor control requests; closing is bounded", () =>
    Effect.gen(function*() {
      const recorder = yield* Effect.scoped(Effect.gen(function*() {
        const recorder = yield* Transcript.toSink(Sink.forEach((_: string) => Effect.never), { flushTimeout: "200 millis" })
        const session = yield* Claude.open({ transcript: recorder })
        for (let i = 0; i < 3; i++) {
          const result = yield* session.run(`turn ${i}`)
          assert.strictEqual(result.result, `echo: turn ${i}`)
          yield* session.setPermissionMode("acceptEdits")
        }
        // Nothing failed while the sink hung: the recorder only reports at close.
        assert.isTrue(Option.isNone(yield* recorder.failure))
        return recorder
      })).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({}))))
      // The close ended at flushTimeout: the recorder gave up on the hung write and says so.
      const failure = yield* recorder.failure
      assert.strictEqual(Option.getOrThrow(failure).reason._tag, "TranscriptFailed")
      assert.include(Option.getOrThrow(failure).message, "did not finish")
    }))

  it.live("a recorder whose scope closed before the session's says the transcript is incomplete", () =>
    Effect.gen(function*() {
      // Found by a review: the lines were dropped without a word and `failure` stayed None, so an
      // empty transcript passed for a complete one.
      const written: Array<string> = []
      const recorder = yield* Effect.scoped(
        Transcript.toSink(Sink.forEach((line: string) => Effect.sync(() => written.push(line))))
      )
      const result = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ transcript: recorder })
        return yield* session.run("hi")
      })).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({}))))
      assert.strictEqual(result.result, "echo: hi", "the session goes on")
      assert.deepStrictEqual(written, [])
      const failure = yield* recorder.failure
      assert.isTrue(Option.isSome(failure), "the lost lines are not reported")
      const reason = Option.getOrThrow(failure).reason
      assert.strictEqual(reason._tag, "TranscriptFailed")
      assert.include((reason as ClaudeError.TranscriptFailed).description, "after the recorder's scope closed")
    }))

  it.live("a second toFile of a file a recorder writes now is TranscriptFailed, not lines written over each other", () =>
    Effect.gen(function*() {
      // Found by a review: each recorder truncated the file and wrote from its own offset, so
      // the two sessions' lines overwrote each other; the file still read, with lines missing.
      const file = yield* tempFile
      yield* Effect.scoped(Effect.gen(function*() {
        const recorder = yield* Transcript.toFile(file)
        const session = yield* Claude.open({ transcript: recorder })
        assert.strictEqual((yield* session.run("first")).result, "echo: first")
        // By another spelling of its path, a symbolic link to it, a hard link to it: the same file.
        const dir = Path.dirname(file)
        Fs.symlinkSync(file, Path.join(dir, "symlink.ndjson"))
        Fs.linkSync(file, Path.join(dir, "hardlink.ndjson"))
        for (const other of [Path.join(dir, ".", Path.basename(file)), Path.join(dir, "symlink.ndjson"), Path.join(dir, "hardlink.ndjson")]) {
          const again = yield* Effect.exit(Effect.scoped(Transcript.toFile(other)))
          const reason = failureReason(again)
          assert.strictEqual(reason._tag, "TranscriptFailed", other)
          assert.include((reason as ClaudeError.TranscriptFailed).description, "another recorder writes it now")
        }
        assert.strictEqual((yield* session.run("second")).result, "echo: second")
      })).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({}))))
      const lines = yield* Transcript.read(file)
      const prompts = lines.flatMap((line) => {
        const msg = line.msg as { type?: unknown; message?: { content?: unknown } }
        return line.dir === "send" && msg.type === "user" ? [msg.message?.content] : []
      })
      assert.deepStrictEqual(prompts, ["first", "second"])
      // Once that recorder is closed, the file is recorded again.
      yield* Effect.scoped(Transcript.toFile(file))
    }).pipe(Effect.scoped))

  it.live("toFile fails with TranscriptFailed when the file cannot be created", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.scoped(Transcript.toFile("/dev/null/not-a-dir/t.ndjson")))
      assert.strictEqual(failureReason(exit)._tag, "TranscriptFailed")
    }))
})

describe("the recorded transcripts in testdata/", () => {
  const files = Fs.readdirSync(transcriptsDir).filter((f) => f.endsWith(".ndjson"))

  it.effect("exist, hold no stream_event, and every line decodes (recv: decodeMessage, send: decodeStdin)", () =>
    Effect.gen(function*() {
      assert.isAtLeast(files.length, 14)
      for (const file of files) {
        const lines = yield* Transcript.read(Path.join(transcriptsDir, file))
        assert.isAtLeast(lines.length, 4, file)
        assert.isTrue(lines.some((l) => l.dir === "send") && lines.some((l) => l.dir === "recv"), file)
        for (const [i, line] of lines.entries()) {
          assert.notStrictEqual((line.msg as { type?: unknown }).type, "stream_event", `${file}:${i + 1}`)
          const decoded: Result.Result<unknown, string> = line.dir === "recv"
            ? Protocol.decodeMessage(line.msg)
            : Protocol.decodeStdin(line.msg)
          assert.isTrue(Result.isSuccess(decoded), `${file}:${i + 1}: ${Result.isFailure(decoded) ? decoded.failure : ""}`)
        }
      }
    }))
})

describe("Replay", { timeout: 30_000 }, () => {
  const plain = Path.join(transcriptsDir, "plain-text.ndjson")

  it.live("a user turn the recording did not expect fails the turn with ReplayMismatch, showing both lines", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const exit = yield* Effect.exit(session.run("Something else entirely"))
      const reason = failureReason(exit)
      assert.strictEqual(reason._tag, "ReplayMismatch")
      const mismatch = reason as ClaudeError.ReplayMismatch
      assert.include(mismatch.expected, "Say hello")
      assert.include(mismatch.actual, "Something else entirely")
      // Later writes keep failing with the same mismatch.
      assert.strictEqual(failureReason(yield* Effect.exit(session.send("more"))), reason)
      const status = yield* session.exit
      assert.strictEqual(status.code, 1)
      assert.include(status.stderrTail, "Something else entirely")
    }).pipe(Effect.scoped, Effect.provide(Replay.layer(plain))))

  it.live("a control request the recording did not expect fails with ReplayMismatch", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      // (The recorded initialize answer follows the recorded user turn, so it is not awaited here.)
      const reason = failureReason(yield* Effect.exit(session.setModel("haiku")))
      assert.strictEqual(reason._tag, "ReplayMismatch")
      assert.include((reason as ClaudeError.ReplayMismatch).actual, "set_model")
      assert.include((reason as ClaudeError.ReplayMismatch).expected, "Say hello")
    }).pipe(Effect.scoped, Effect.provide(Replay.layer(plain))))

    const lines: ReadonlyArray<Transcript.Line> = [
      {
        dir: "recv",
        msg: {
          type: "control_request",
          request_id: "cli-1",
          request: { subtype: "mcp_message", server_name: "byre", message: { jsonrpc: "2.0", id: 1, method: "tools/list" } }
        }
      },
      { dir: "send", msg: { type: "control_request", request_id: "recorded-init", request: { subtype: "initialize", hooks: {} } } },
      // The library's answer as it writes it (a replay compares the body: a handler that answers
      // otherwise is a mismatch).
      {
        dir: "send",
        msg: {
          type: "control_response",
          response: {
            subtype: "success",
            request_id: "cli-1",
            response: {
              mcp_response: {
                jsonrpc: "2.0",
                id: 1,
                result: {
                  tools: [{
                    name: "echo",
                    description: "Echo",
                    inputSchema: {
                      type: "object",
                      properties: { text: { type: "string" } },
                      required: ["text"],
                      additionalProperties: true
                    }
                  }]
                }
              }
            }
          }
        }
      },
      {
        dir: "recv",
        msg: FakeCli.success({ request_id: "recorded-init" }, {
          commands: [],
          agents: [],
          output_style: "default",
          available_output_styles: ["default"],
          models: [],
          account: {},
          claude_code_version: "replayed"
        })
      }
    ]

  it.live("plays lines recorded before the first send at once, matches answers by the CLI's ids, rewrites the library's ids", () =>
    Effect.gen(function*() {
      const server = McpServers.layer(McpServers.server("byre", {
        tools: [McpServers.tool({
          name: "echo",
          description: "Echo",
          input: Schema.Struct({ text: Schema.String }),
          handler: ({ text }) => Effect.succeed(text)
        })]
      }))
      const session = yield* Claude.open().pipe(Effect.provide(server))
      const init = yield* session.initializeResult.pipe(Effect.timeout("5 seconds"))
      assert.strictEqual(init.claude_code_version, "replayed")
    }).pipe(Effect.scoped, Effect.provide(Replay.layer(lines))))

  it.live("maps the recorded user message's uuid to the program's: the turn matched by uuid ends with its result", () =>
    Effect.gen(function*() {
      const recordedUuid = "00000000-0000-4000-8000-0000000000aa"
      const echo = { user_message_uuid: recordedUuid, user_message_uuids: [recordedUuid] }
      const [init, ...rest] = FakeCli.textTurn({ sessionId: "s-1", text: "recorded answer", userMessageUuid: recordedUuid })
      const recording: ReadonlyArray<Transcript.Line> = [
        { dir: "send", msg: { type: "control_request", request_id: "recorded-init", request: { subtype: "initialize", hooks: {} } } },
        {
          dir: "send",
          msg: { type: "user", message: { role: "user", content: "Hello" }, parent_tool_use_id: null, session_id: "", uuid: recordedUuid }
        },
        { dir: "recv", msg: FakeCli.success({ request_id: "recorded-init" }, { commands: [], models: [] }) },
        {
          dir: "recv",
          msg: { type: "command_lifecycle", command_uuid: recordedUuid, state: "started", uuid: "u-1", session_id: "s-1" }
        },
        { dir: "recv", msg: { ...init!, ...echo } },
        ...rest.map((msg): Transcript.Line => ({ dir: "recv", msg }))
      ]
      const session = yield* Claude.open().pipe(Effect.provide(Replay.layer(recording)))
      const result = yield* session.run("Hello").pipe(Effect.timeout("5 seconds"))
      assert.strictEqual(result.result, "recorded answer")
      const now = result.user_message_uuid
      assert.isString(now)
      assert.notStrictEqual(now, recordedUuid)
      assert.deepStrictEqual(result.turn.userMessageUuids, [now!])
    }).pipe(Effect.scoped))

  it.live("replays a recorded Bash turn through the library: same events as recorded", () =>
    Effect.gen(function*() {
      const recorded = yield* Transcript.read(Path.join(transcriptsDir, "bash-tool.ndjson"))
      const session = yield* Claude.open()
      const result = yield* session.run("Run echo hi")
      const recordedResult = recorded.find((l) => (l.msg as { type?: string }).type === "result")!.msg as Claude.TurnResult
      assert.strictEqual(result.result, recordedResult.result)
      assert.strictEqual(result.session_id, recordedResult.session_id)
      assert.strictEqual(result.num_turns, 2)
    }).pipe(Effect.scoped, Effect.provide(Replay.layer(Path.join(transcriptsDir, "bash-tool.ndjson")))))

  it.live("streamText: the recorded answer's text is streamed as text_delta stream_events before it; without it, none", () =>
    Effect.gen(function*() {
      const streamed = (layer: ReturnType<typeof Replay.layer>, options?: Claude.SessionOptions) =>
        Effect.scoped(Effect.gen(function*() {
          const session = yield* Claude.open(options)
          const events = yield* Stream.runCollect(session.turn("Say hello"))
          const deltas = events.flatMap((event) => {
            if (event.type !== "stream_event") return []
            const e = event.event as { type?: string; delta?: { type?: string; text?: string } }
            return e.type === "content_block_delta" && e.delta?.type === "text_delta" ? [e.delta.text ?? ""] : []
          })
          const assistantAt = events.findIndex((event) => event.type === "assistant")
          const lastDeltaAt = events.findLastIndex((event) => event.type === "stream_event")
          return { deltas, inOrder: lastDeltaAt < assistantAt }
        })).pipe(Effect.provide(layer))
      const on = yield* streamed(Replay.layer(plain, { streamText: true, chunks: 3 }))
      assert.strictEqual(on.deltas.length, 3)
      assert.strictEqual(on.deltas.join(""), "Hello from the fake model.")
      assert.isTrue(on.inOrder)
      // A recorder keeps no stream_events: by default a replay streams nothing.
      assert.deepStrictEqual((yield* streamed(Replay.layer(plain))).deltas, [])
      // Nor does it when the session asked the CLI for no partial messages.
      const off = yield* streamed(Replay.layer(plain, { streamText: true }), { includePartialMessages: false })
      assert.deepStrictEqual(off.deltas, [])
    }))
})
