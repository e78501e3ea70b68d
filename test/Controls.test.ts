/**
 * The session's control methods added for issue 15, against FakeCli: each writes its typed
 * request body, decodes the CLI's answer with its schema (a broken answer is
 * `ProtocolViolation`, an error answer `ControlRejected`), and refuses bad input before writing
 * anything (`InvalidInput`). Their effect on the real CLI is in `ControlsLive.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Protocol from "../src/Protocol.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) return assert.fail(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return assert.fail(`expected a typed failure, got ${String(exit.cause)}`)
  return error.value.reason
}

type Answer = { readonly ok: unknown } | { readonly error: string; readonly code?: string }

/**
 * A session on a FakeCli that answers each control request with `answer(subtype)` and records
 * every request body it got.
 */
const withCli = <A, E, R>(
  answer: (subtype: string) => Answer,
  body: (session: Claude.Session, requests: ReadonlyArray<Record<string, unknown>>) => Effect.Effect<A, E, R>
) => {
  const requests: Array<Record<string, unknown>> = []
  return Effect.gen(function*() {
    const session = yield* Claude.open()
    return yield* body(session, requests)
  }).pipe(
    Effect.provide(FakeCli.layer(FakeCli.conversation({
      onControl: (request, cli) => {
        const body = request.request as Record<string, unknown>
        requests.push(body)
        const reply = answer(String(body.subtype))
        return cli.emit("ok" in reply ? FakeCli.success(request, reply.ok) : FakeCli.failure(request, reply.error, reply.code))
      }
    }))),
    Effect.provide(Logger.layer([]))
  )
}

const slash = { name: "tidy", description: "Tidies.", argumentHint: "" }
const model = { value: "default", displayName: "Default", description: "The default" }

/** Each method: its call, the body it writes, a good answer and what it returns, a broken answer. */
const cases: ReadonlyArray<{
  readonly name: string
  readonly call: (session: Claude.Session) => Effect.Effect<unknown, ClaudeError.ClaudeError>
  readonly written: Record<string, unknown>
  readonly answer: unknown
  readonly returns: unknown
  readonly broken: unknown
}> = [
  {
    name: "setMcpServers (external)",
    call: (s) =>
      s.setMcpServers({
        files: { command: "node", args: ["server.mjs"] },
        web: { type: "http", url: "https://mcp.example.com/mcp", headers: { authorization: "Bearer x" } }
      }),
    written: {
      subtype: "mcp_set_servers",
      servers: {
        files: { command: "node", args: ["server.mjs"] },
        web: { type: "http", url: "https://mcp.example.com/mcp", headers: { authorization: "Bearer x" } }
      }
    },
    answer: { added: ["files", "web"], removed: [], errors: {} },
    returns: { added: ["files", "web"], removed: [], errors: {} },
    broken: { added: "files" }
  },
  {
    name: "reconnectMcpServer",
    call: (s) => s.reconnectMcpServer("files"),
    written: { subtype: "mcp_reconnect", serverName: "files" },
    answer: {},
    returns: undefined,
    broken: undefined
  },
  {
    name: "toggleMcpServer",
    call: (s) => s.toggleMcpServer("files", false),
    written: { subtype: "mcp_toggle", serverName: "files", enabled: false },
    answer: {},
    returns: undefined,
    broken: undefined
  },
  {
    name: "readMcpResource",
    call: (s) => s.readMcpResource("files", "ui://files/view"),
    written: { subtype: "mcp_read_resource", serverName: "files", uri: "ui://files/view" },
    answer: { contents: [{ uri: "ui://files/view", mimeType: "text/html", text: "<p/>" }] },
    returns: { contents: [{ uri: "ui://files/view", mimeType: "text/html", text: "<p/>" }] },
    broken: { contents: [{ text: "no uri" }] }
  },
  {
    name: "setMcpPermissionModeOverride",
    call: (s) => s.setMcpPermissionModeOverride("files", null),
    written: { subtype: "set_mcp_permission_mode_override", serverName: "files", mode: null },
    answer: { warning: "not yet known" },
    returns: { warning: "not yet known" },
    broken: { warning: 3 }
  },
  {
    name: "setMaxThinkingTokens",
    call: (s) => s.setMaxThinkingTokens(4000, { display: "omitted" }),
    written: { subtype: "set_max_thinking_tokens", max_thinking_tokens: 4000, thinking_display: "omitted" },
    answer: {},
    returns: undefined,
    broken: undefined
  },
  {
    name: "setMaxThinkingTokens(null)",
    call: (s) => s.setMaxThinkingTokens(null),
    written: { subtype: "set_max_thinking_tokens", max_thinking_tokens: null },
    answer: {},
    returns: undefined,
    broken: undefined
  },
  {
    name: "contextUsage with detail",
    call: (s) => Effect.map(s.contextUsage({ detail: "summary" }), (usage) => usage.totalTokens),
    written: { subtype: "get_context_usage", detail: "summary" },
    answer: { categories: [], totalTokens: 12, maxTokens: 100, percentage: 12, model: "m" },
    returns: 12,
    broken: { categories: [], totalTokens: "12" }
  },
  {
    name: "interruptRequest with cancelQueued",
    call: (s) => s.interruptRequest({ cancelQueued: true }),
    written: { subtype: "interrupt", cancel_queued: true },
    answer: { still_queued: [], cancelled: ["u1"] },
    returns: { still_queued: [], cancelled: ["u1"] },
    broken: { still_queued: [], cancelled: "u1" }
  },
  {
    name: "renameSession",
    call: (s) => s.renameSession("Planning", { sessionId: "s-1" }),
    written: { subtype: "rename_session", title: "Planning", source: "host", session_id: "s-1" },
    answer: {},
    returns: undefined,
    broken: undefined
  },
  {
    name: "reloadPlugins",
    call: (s) =>
      Effect.map(
        s.reloadPlugins({ holdOnCacheImpact: true, addPlugins: ["/opt/plugins/mine"], refuseIfBusy: true }),
        (r) => [r.plugins, r.held]
      ),
    written: {
      subtype: "reload_plugins",
      hold_on_cache_impact: true,
      add_plugins: [{ type: "local", path: "/opt/plugins/mine" }],
      refuse_if_busy: true
    },
    answer: {
      commands: [slash],
      agents: [],
      plugins: [{ name: "mine", path: "/opt/plugins/mine" }],
      mcpServers: [],
      error_count: 0,
      held: false
    },
    returns: [[{ name: "mine", path: "/opt/plugins/mine" }], false],
    broken: { commands: [slash] }
  },
  {
    name: "reloadSkills",
    call: (s) => s.reloadSkills(),
    written: { subtype: "reload_skills" },
    answer: { skills: [slash] },
    returns: { skills: [slash] },
    broken: { skills: [{ name: 1 }] }
  },
  {
    name: "reloadOutputStyles",
    call: (s) => s.reloadOutputStyles(),
    written: { subtype: "reload_output_styles" },
    answer: { available_output_styles: ["default", "Terse"] },
    returns: { available_output_styles: ["default", "Terse"] },
    broken: {}
  },
  {
    name: "applyFlagSettings",
    call: (s) => s.applyFlagSettings({ effortLevel: "low", model: null }),
    written: { subtype: "apply_flag_settings", settings: { effortLevel: "low", model: null } },
    answer: {},
    returns: undefined,
    broken: undefined
  },
  {
    name: "settings",
    call: (s) => Effect.map(s.settings(), (r) => r.effective),
    written: { subtype: "get_settings" },
    answer: { effective: { effortLevel: "low" }, sources: [{ source: "flagSettings", settings: { effortLevel: "low" } }] },
    returns: { effortLevel: "low" },
    broken: { effective: "low" }
  },
  {
    name: "backgroundTasks",
    call: (s) => s.backgroundTasks({ toolUseId: "toolu_1" }),
    written: { subtype: "background_tasks", tool_use_id: "toolu_1" },
    answer: { backgrounded: false },
    returns: false,
    broken: { backgrounded: "no" }
  },
  {
    name: "seedReadState",
    call: (s) => s.seedReadState("notes.txt", 1700000000123.7),
    written: { subtype: "seed_read_state", path: "notes.txt", mtime: 1700000000123 },
    answer: {},
    returns: undefined,
    broken: undefined
  },
  {
    name: "usage",
    call: (s) => Effect.map(s.usage({ skipBehaviors: true }), (r) => r.session.total_cost_usd),
    written: { subtype: "get_usage", skip_behaviors: true },
    answer: { session: { total_cost_usd: 0.5 }, rate_limits_available: false, rate_limits: null },
    returns: 0.5,
    broken: { session: {}, rate_limits_available: false }
  },
  {
    name: "updateSettings",
    call: (s) => s.updateSettings("localSettings", { outputStyle: "Concise" }),
    written: { subtype: "update_settings", source: "localSettings", settings: { outputStyle: "Concise" } },
    answer: {},
    returns: undefined,
    broken: undefined
  },
  {
    name: "readFile",
    call: (s) => s.readFile("notes.txt", { maxBytes: 10, encoding: "base64" }),
    written: { subtype: "read_file", path: "notes.txt", max_bytes: 10, encoding: "base64" },
    answer: { contents: "aGk=", absPath: "/srv/notes.txt", encoding: "base64" },
    returns: { contents: "aGk=", absPath: "/srv/notes.txt", encoding: "base64" },
    broken: { contents: "aGk=" }
  },
  {
    name: "sideQuestion",
    call: (s) => s.sideQuestion("What is 2+2?"),
    written: { subtype: "side_question", question: "What is 2+2?" },
    answer: { response: "4", synthetic: false },
    returns: "4",
    broken: { response: 4 }
  },
  {
    name: "status",
    call: (s) => s.status(),
    written: { subtype: "get_status" },
    answer: { sections: [{ title: "Session", rows: [{ label: "Version", value: "2.1.332" }] }] },
    returns: { sections: [{ title: "Session", rows: [{ label: "Version", value: "2.1.332" }] }] },
    broken: { sections: [{ rows: [] }] }
  },
  {
    name: "exportConversation",
    call: (s) => s.exportConversation(),
    written: { subtype: "export_conversation" },
    answer: { text: "> hi", default_filename: "hi.txt" },
    returns: { text: "> hi", default_filename: "hi.txt" },
    broken: { default_filename: "hi.txt" }
  },
  {
    name: "listModels",
    call: (s) => s.listModels(),
    written: { subtype: "list_models" },
    answer: { models: [model] },
    returns: [model],
    broken: { models: [{ value: "x" }] }
  }
]

describe("control methods against FakeCli", () => {
  for (const c of cases) {
    it.effect(`${c.name}: writes its request and decodes the answer`, () =>
      withCli(() => ({ ok: c.answer }), (session, requests) =>
        Effect.gen(function*() {
          const returned = yield* c.call(session)
          assert.deepStrictEqual(requests, [c.written])
          assert.deepStrictEqual(returned, c.returns)
          // What the session wrote decodes as the named request (not the catch-all).
          const decoded = Schema.decodeUnknownSync(Protocol.OutgoingRequestBody)(requests[0])
          assert.strictEqual(decoded.subtype, c.written.subtype)
          assert.isTrue(
            (Protocol.knownOutgoingRequestSubtypes as ReadonlyArray<string>).includes(String(c.written.subtype))
          )
        })))

    if (c.broken !== undefined) {
      it.effect(`${c.name}: an answer that breaks its schema is ProtocolViolation`, () =>
        withCli(() => ({ ok: c.broken }), (session) =>
          Effect.gen(function*() {
            const reason = reasonOf(yield* Effect.exit(c.call(session)))
            assert.strictEqual(reason._tag, "ProtocolViolation")
            assert.include(reason.message, `The ${String(c.written.subtype)} response does not match its schema`)
          })))
    }

    it.effect(`${c.name}: an error answer is ControlRejected with the CLI's text and code`, () =>
      withCli(() => ({ error: "Server not found: files", code: "some_code" }), (session) =>
        Effect.gen(function*() {
          const reason = reasonOf(yield* Effect.exit(c.call(session)))
          assert.strictEqual(reason._tag, "ControlRejected")
          if (reason._tag !== "ControlRejected") return
          assert.strictEqual(reason.subtype, c.written.subtype)
          assert.strictEqual(reason.error, "Server not found: files")
          assert.strictEqual(reason.errorCode, "some_code")
        })))
  }

  it.effect("bad input is InvalidInput and nothing is written", () =>
    withCli(() => ({ ok: {} }), (session, requests) =>
      Effect.gen(function*() {
        const bad: ReadonlyArray<readonly [Effect.Effect<unknown, ClaudeError.ClaudeError>, string]> = [
          [session.setMaxThinkingTokens(-1), "non-negative integer"],
          [session.setMaxThinkingTokens(2.5), "non-negative integer"],
          [session.renameSession(" "), "must not be empty"],
          [session.reloadPlugins({ addPlugins: ["relative/dir"] }), "absolute paths, got relative/dir"],
          [session.seedReadState("a.txt", Number.NaN), "mtime"],
          [session.readFile("a.txt", { maxBytes: 0 }), "maxBytes must be a positive integer"],
          [session.sideQuestion(""), "question must not be empty"],
          [session.setMcpServers({ "": { command: "node" } }), "name must not be empty"],
          [session.setMcpServers({ files: { command: "" } }), "command must not be empty"],
          [session.setMcpServers({ web: { type: "sse", url: "not a url" } }), "url is not a URL"]
        ]
        for (const [effect, text] of bad) {
          const reason = reasonOf(yield* Effect.exit(effect))
          assert.strictEqual(reason._tag, "InvalidInput")
          assert.include(reason.message, text)
        }
        assert.deepStrictEqual(requests, [])
      })))

  it.effect("setMcpServers with in-process servers: sent as sdk entries, and the session serves their tools from then on", () =>
    Effect.gen(function*() {
      const received: Array<string> = []
      const late = McpServers.server("late", {
        alwaysLoad: true,
        tools: [McpServers.tool({
          name: "echo",
          description: "Echo.",
          input: Schema.Struct({ text: Schema.String }),
          handler: (input) => Effect.sync(() => (received.push(input.text), `echo: ${input.text}`))
        })]
      })
      const done = yield* Deferred.make<Exit.Exit<unknown, ClaudeError.ClaudeError>>()
      const asked = yield* Deferred.make<boolean>()
      const written: Array<Record<string, unknown>> = []
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          // Before the set: the session knows no "late" server.
          const before = yield* Effect.exit(FakeCli.callMcpTool(cli, "late", "echo", { text: "early" }))
          yield* Deferred.succeed(asked, Exit.isFailure(before))
          const request = yield* cli.nextMatching((m) => m.type === "control_request")
          written.push(request.request as Record<string, unknown>)
          yield* cli.emit(FakeCli.success(request, { added: ["late"], removed: [], errors: {} }))
          const after = yield* Effect.exit(FakeCli.callMcpTool(cli, "late", "echo", { text: "hi" }))
          yield* Deferred.succeed(done, Exit.isFailure(before) ? after : Exit.fail(ClaudeError.make(
            new ClaudeError.InvalidInput({ description: "the unknown server answered" })
          )))
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        assert.isTrue(yield* Deferred.await(asked), "the session served \"late\" before it was set")
        const answer = yield* session.setMcpServers(
          { files: { command: "node" } },
          { inProcess: [late] }
        )
        assert.deepStrictEqual(answer.added, ["late"])
        const after = yield* Deferred.await(done)
        assert.isTrue(Exit.isSuccess(after), String(after))
        assert.deepStrictEqual(received, ["hi"])
        assert.deepStrictEqual(written, [{
          subtype: "mcp_set_servers",
          servers: { files: { command: "node", args: [] }, late: { type: "sdk", name: "late", alwaysLoad: true } }
        }])
        // A different definition under a served name is refused before anything is written.
        const clash = McpServers.server("late", { tools: [] })
        const reason = reasonOf(yield* Effect.exit(session.setMcpServers({}, { inProcess: [clash] })))
        assert.strictEqual(reason._tag, "InvalidInput")
        assert.include(reason.message, "already served by another definition")
        const twice = reasonOf(yield* Effect.exit(session.setMcpServers({ late: { command: "node" } }, { inProcess: [late] })))
        assert.strictEqual(twice._tag, "InvalidInput")
      }).pipe(Effect.provide(cli), Effect.provide(Logger.layer([])))
    }))
})
