import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as fc from "fast-check"
import * as Protocol from "../src/Protocol.ts"
import { type ProtocolLine, protocolFiles, readProtocolLines } from "./support/protocolTranscripts.ts"

// ---------------------------------------------------------------------------------------------
// Transcripts
// ---------------------------------------------------------------------------------------------

type Json = Record<string, unknown>

type Line = ProtocolLine

const transcriptFiles = protocolFiles()

// Fresh objects per call: decoding returns the parsed object itself, tests may mutate copies.
const loadLines = (): Array<Line> => readProtocolLines()

const lines = loadLines()
const recv = lines.filter((l) => l.dir === "recv")
const send = lines.filter((l) => l.dir === "send")
const where = (l: Line) => `${l.file}:${l.index + 1} ${JSON.stringify(l.msg).slice(0, 160)}`

/**
 * The deliberately bogus lines the host wrote (cli-2.1.332.md §3.4, "Bad input"). Every other
 * transcript line must decode to a modelled member.
 */
const bogusSendLines: ReadonlyArray<{
  readonly file: string
  readonly why: string
  readonly matches: (msg: Json) => boolean
  readonly expect: (result: Result.Result<unknown, string>) => void
}> = [
  {
    // `{"type":"no_such_type","foo":1}`: an unknown type, which the CLI ignores; Unknown, not an error.
    file: "k2-unknown-type",
    why: "unknown top-level type",
    matches: (msg) => msg.type === "no_such_type",
    expect: (result) => {
      assert.isTrue(Result.isSuccess(result))
      if (Result.isSuccess(result)) assert.strictEqual((result.success as { type: string }).type, "unknown")
    }
  },
  {
    // A user line without `message`: the CLI exits 1 ("Expected message role 'user'").
    file: "k3-user-missing-message",
    why: "user line without message",
    matches: (msg) => msg.type === "user" && !("message" in msg),
    expect: (result) => {
      assert.isTrue(Result.isFailure(result))
      if (Result.isFailure(result)) assert.include(result.failure, `["message"]`)
    }
  },
  {
    // `content: 42`: the CLI ignores the line silently.
    file: "k5-user-bad-content",
    why: "user line with numeric content",
    matches: (msg) => msg.type === "user" && (msg.message as Json | undefined)?.content === 42,
    expect: (result) => {
      assert.isTrue(Result.isFailure(result))
      if (Result.isFailure(result)) assert.include(result.failure, `["message"]["content"]`)
    }
  },
  {
    // `request: {}`: the CLI answers "Unsupported control request subtype: undefined".
    file: "k7-control-request-no-subtype",
    why: "control_request without subtype",
    matches: (msg) => msg.type === "control_request" && !("subtype" in (msg.request as Json)),
    expect: (result) => {
      assert.isTrue(Result.isFailure(result))
      if (Result.isFailure(result)) assert.include(result.failure, `["request"]["subtype"]`)
    }
  }
]

const bogusFor = (l: Line) => bogusSendLines.find((b) => b.file === l.file && b.matches(l.msg))

const kindOf = (msg: Json): string => {
  const type = String(msg.type)
  switch (type) {
    case "system":
      return `system/${String(msg.subtype)}`
    case "stream_event": {
      const event = msg.event as Json
      const delta = event.delta as Json | undefined
      return `stream_event/${String(event.type)}${delta?.type ? `/${String(delta.type)}` : ""}`
    }
    case "control_request":
      return `control_request/${String((msg.request as Json).subtype)}`
    case "control_response":
      return `control_response/${String((msg.response as Json).subtype)}`
    case "result":
      return `result/${String(msg.subtype)}`
    default:
      return type
  }
}

// ---------------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------------

const clone = <A>(a: A): A => structuredClone(a)

type Path = ReadonlyArray<string | number>

const pathsOf = (value: unknown, maxDepth: number, path: Path = []): Array<Path> => {
  if (maxDepth === 0 || typeof value !== "object" || value === null) return []
  const out: Array<Path> = []
  const keys: Array<string | number> = Array.isArray(value) ? value.map((_, i) => i).slice(0, 2) : Object.keys(value)
  for (const key of keys) {
    const child = [...path, key]
    out.push(child)
    out.push(...pathsOf((value as Record<string | number, unknown>)[key], maxDepth - 1, child))
  }
  return out
}

const setAt = (root: unknown, path: Path, f: (parent: Record<string | number, unknown>, key: string | number) => void) => {
  let node = root as Record<string | number, unknown>
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>
  f(node, path[path.length - 1]!)
}

const replacements: ReadonlyArray<unknown> = [undefined, null, 0, -1.5, "x", "", true, [], {}, ["x"], { type: "x" }]

/** Every line obtained by deleting, or replacing with an odd value, one node of `msg`. */
const mutationsOf = (msg: Json, maxDepth: number, extraValues: ReadonlyArray<unknown> = []): Array<Json> => {
  const out: Array<Json> = []
  for (const path of pathsOf(msg, maxDepth)) {
    const deleted = clone(msg)
    setAt(deleted, path, (parent, key) => {
      if (Array.isArray(parent)) parent.splice(Number(key), 1)
      else delete parent[key]
    })
    out.push(deleted)
    for (const value of [...replacements, ...extraValues]) {
      const replaced = clone(msg)
      setAt(replaced, path, (parent, key) => {
        parent[key] = clone(value)
      })
      out.push(replaced)
    }
  }
  const extra = clone(msg)
  extra.an_unmodelled_field = { nested: [1, 2] }
  out.push(extra)
  return out
}

/** A few lines of each kind, so that the mutation tests cover every kind without exploding. */
const representatives = (source: ReadonlyArray<Line>, perKind: number): Array<Line> => {
  const byKind = new Map<string, Array<Line>>()
  for (const l of source) {
    const k = kindOf(l.msg)
    const group = byKind.get(k) ?? []
    if (group.length < perKind) group.push(l)
    byKind.set(k, group)
  }
  return [...byKind.values()].flat()
}

// The full schemas, interpreted: the independent oracle for the guards and the fast path.
const fullMessageDecode = Schema.decodeUnknownResult(Protocol.Message)
const fullStdinDecode = Schema.decodeUnknownResult(Protocol.StdinMessage)
const fullTextDeltaDecode = Schema.decodeUnknownResult(Protocol.TextDeltaStreamEvent)

/** The `type` literals of a union of structs (nested unions included), from the schema itself. */
const typeLiterals = (schema: unknown): ReadonlyArray<string> => {
  const s = schema as { readonly members?: ReadonlyArray<unknown>; readonly fields?: { readonly type?: { readonly literal?: unknown } } }
  if (s.members !== undefined) return s.members.flatMap(typeLiterals)
  const literal = s.fields?.type?.literal
  return typeof literal === "string" ? [literal] : []
}

// The stdout message types the full schema models (all but the catch-all `unknown`): derived,
// not copied, so a type added to the schema is checked against the codec's list.
const knownTopTypes: ReadonlySet<string> = new Set(typeLiterals(Protocol.Message).filter((t) => t !== "unknown"))
const knownSystemSubtypes: ReadonlySet<string> = new Set(
  Protocol.SystemMessage.members.map((m) => m.fields.subtype.literal)
)

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe("Protocol", () => {
  it("reads the transcripts", () => {
    assert.isAbove(transcriptFiles.length, 60)
    assert.isAbove(recv.length, 1500)
    assert.isAbove(send.length, 400)
  })

  describe("transcripts", () => {
    it("every recv line decodes to a modelled member, as the same object", () => {
      const problems: Array<string> = []
      for (const l of recv) {
        const result = Protocol.decodeMessage(l.msg)
        if (Result.isFailure(result)) problems.push(`${where(l)}\n  -> ${result.failure}`)
        else if (result.success.type === "unknown") problems.push(`${where(l)}\n  -> Unknown`)
        else if (result.success !== l.msg) problems.push(`${where(l)}\n  -> not the same object`)
      }
      assert.deepStrictEqual(problems, [])
    })

    it("every recv line also matches the full Message union (the guards agree with the schema)", () => {
      for (const l of recv) assert.isTrue(Result.isSuccess(fullMessageDecode(l.msg)), where(l))
    })

    it("every send line decodes to a modelled stdin member, except the deliberately bogus ones", () => {
      const problems: Array<string> = []
      const hit = new Set<string>()
      for (const l of send) {
        const result = Protocol.decodeStdin(l.msg)
        const bogus = bogusFor(l)
        if (bogus !== undefined) {
          bogus.expect(result)
          hit.add(bogus.file)
          continue
        }
        if (Result.isFailure(result)) problems.push(`${where(l)}\n  -> ${result.failure}`)
        else if (result.success.type === "unknown") problems.push(`${where(l)}\n  -> Unknown`)
        else if (result.success !== l.msg) problems.push(`${where(l)}\n  -> not the same object`)
        else assert.isTrue(Result.isSuccess(fullStdinDecode(l.msg)), where(l))
      }
      assert.deepStrictEqual(problems, [])
      // Each exception is really in the transcripts (else the list is stale).
      assert.deepStrictEqual([...hit].sort(), bogusSendLines.map((b) => b.file).sort())
    })

    it("covers every kind of line seen", () => {
      const kinds = new Set(recv.map((l) => kindOf(l.msg)))
      for (
        const k of [
          "system/init",
          "system/status",
          "system/api_retry",
          "system/task_started",
          "system/task_updated",
          "system/task_notification",
          "system/background_tasks_changed",
          "system/compact_boundary",
          "system/informational",
          "system/notification",
          "system/permission_denied",
          "system/thinking_tokens",
          "assistant",
          "user",
          "result/success",
          "result/error_during_execution",
          "stream_event/message_start",
          "stream_event/content_block_start",
          "stream_event/content_block_delta/text_delta",
          "stream_event/content_block_delta/input_json_delta",
          "stream_event/content_block_delta/thinking_delta",
          "stream_event/content_block_delta/signature_delta",
          "stream_event/content_block_stop",
          "stream_event/message_delta",
          "stream_event/message_stop",
          "control_request/hook_callback",
          "control_request/mcp_message",
          "control_request/can_use_tool",
          "control_response/success",
          "control_response/error",
          "control_cancel_request",
          "command_lifecycle"
        ]
      ) assert.isTrue(kinds.has(k), k)
      // Every system subtype seen is modelled.
      for (const k of kinds) {
        if (k.startsWith("system/")) assert.isTrue(knownSystemSubtypes.has(k.slice("system/".length)), k)
      }
    })

    it("decodes typed fields of real lines", () => {
      const init = recv.find((l) => l.file === "a-plain-turn" && kindOf(l.msg) === "system/init")!
      const decoded = Protocol.decodeMessage(init.msg)
      assert.isTrue(Result.isSuccess(decoded))
      const message = Result.getOrThrow(decoded)
      assert.strictEqual(message.type, "system")
      if (message.type === "system" && message.subtype === "init") {
        assert.strictEqual(message.claude_code_version, "2.1.332")
        assert.strictEqual(message.model, "claude-opus-5-5")
        assert.deepStrictEqual(message.mcp_servers, [{ name: "byre", status: "connected", source: "sdk" }])
      } else assert.fail("not a system/init")

      const initResponse = recv.find((l) =>
        l.msg.type === "control_response" &&
        ((l.msg.response as Json).response as Json | undefined)?.commands !== undefined
      )!
      const body = ((initResponse.msg.response as Json).response) as Json
      const initialize = Protocol.makeDecoder(Protocol.InitializeResponse)(body)
      assert.isTrue(Result.isSuccess(initialize))
      if (Result.isSuccess(initialize)) {
        assert.strictEqual(initialize.success.claude_code_version, "2.1.332")
        assert.strictEqual(initialize.success.account.apiKeySource, "ANTHROPIC_API_KEY")
        assert.strictEqual(initialize.success, body)
      }
    })

    it("every response body the CLI sent decodes with the schema of its request", () => {
      const counts: Record<string, number> = {}
      for (const file of new Set(lines.map((l) => l.file))) {
        const requests = new Map<string, string>()
        for (const l of lines.filter((x) => x.file === file)) {
          if (l.dir === "send" && l.msg.type === "control_request") {
            const request = l.msg.request as Json
            requests.set(String(l.msg.request_id), String(request.subtype))
          }
          if (l.dir === "recv" && l.msg.type === "control_response") {
            const response = l.msg.response as Json
            const subtype = requests.get(String(response.request_id))
            if (subtype === undefined || response.subtype !== "success") continue
            if (!(subtype in Protocol.responseBodies)) continue
            const schema = Protocol.responseBodies[subtype as keyof typeof Protocol.responseBodies]
            const decoded = Protocol.makeDecoder(schema, subtype)(response.response)
            assert.isTrue(Result.isSuccess(decoded), `${where(l)} ${Result.isFailure(decoded) ? decoded.failure : ""}`)
            counts[subtype] = (counts[subtype] ?? 0) + 1
          }
        }
      }
      assert.deepStrictEqual(Object.keys(counts).sort(), Object.keys(Protocol.responseBodies).sort())
    })

    it("every answer the host sent decodes with the schema of the CLI's request", () => {
      const schemas = {
        hook_callback: Protocol.HookOutput,
        mcp_message: Protocol.McpMessageResponse,
        can_use_tool: Protocol.PermissionResult
      } as const
      let checked = 0
      for (const file of new Set(lines.map((l) => l.file))) {
        const requests = new Map<string, string>()
        for (const l of lines.filter((x) => x.file === file)) {
          if (l.dir === "recv" && l.msg.type === "control_request") {
            requests.set(String(l.msg.request_id), String((l.msg.request as Json).subtype))
          }
          if (l.dir === "send" && l.msg.type === "control_response") {
            const response = l.msg.response as Json
            const subtype = requests.get(String(response.request_id)) as keyof typeof schemas | undefined
            if (subtype === undefined || response.subtype !== "success") continue
            const decoded = Protocol.makeDecoder(schemas[subtype], subtype)(response.response)
            assert.isTrue(Result.isSuccess(decoded), `${where(l)} ${Result.isFailure(decoded) ? decoded.failure : ""}`)
            checked++
          }
        }
      }
      assert.isAbove(checked, 200)
    })
  })

  describe("unknown is not an error", () => {
    it("an unknown type decodes to Unknown keeping the object", () => {
      const raw = { type: "brand_new_thing", payload: { a: [1, 2] } }
      const result = Protocol.decodeMessage(raw)
      assert.isTrue(Result.isSuccess(result))
      const message = Result.getOrThrow(result)
      assert.strictEqual(message.type, "unknown")
      if (message.type === "unknown") assert.strictEqual(message.raw, raw)
    })

    it("an unknown system subtype decodes to Unknown keeping the object", () => {
      const raw = { type: "system", subtype: "brand_new_subtype", hook_id: "h1", session_id: "s", uuid: "u" }
      const message = Result.getOrThrow(Protocol.decodeMessage(raw))
      assert.deepStrictEqual(message, { type: "unknown", raw })
    })

    it("unknown content blocks, stream events, deltas and control subtypes are kept in known lines", () => {
      const assistant = recv.find((l) => l.msg.type === "assistant")!.msg
      const withDocument = clone(assistant)
      ;(withDocument.message as Json).content = [{ type: "server_tool_use", id: "x", name: "web_search", input: {} }]
      assert.strictEqual(Result.getOrThrow(Protocol.decodeMessage(withDocument)), withDocument)

      const delta = recv.find((l) => kindOf(l.msg) === "stream_event/content_block_delta/text_delta")!.msg
      const citations = clone(delta)
      ;(citations.event as Json).delta = { type: "citations_delta", citation: { cited_text: "x" } }
      assert.strictEqual(Result.getOrThrow(Protocol.decodeMessage(citations)), citations)
      const errorEvent = clone(delta)
      errorEvent.event = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }
      assert.strictEqual(Result.getOrThrow(Protocol.decodeMessage(errorEvent)), errorEvent)

      const elicitation: Json = { type: "control_request", request_id: "r1", request: { subtype: "elicitation", x: 1 } }
      assert.strictEqual(Result.getOrThrow(Protocol.decodeMessage(elicitation)), elicitation)
      const custom = Protocol.controlRequest("r2", { subtype: Protocol.unknownType("get_plan") })
      assert.strictEqual(Result.getOrThrow(Protocol.decodeStdin(custom)), custom)
    })

    it("a new result subtype or terminal_reason is accepted", () => {
      const result = clone(recv.find((l) => l.msg.type === "result")!.msg)
      result.subtype = "error_something_new"
      result.terminal_reason = "a_new_reason"
      assert.strictEqual(Result.getOrThrow(Protocol.decodeMessage(result)), result)
    })

    it("anything but an object with a string type is an error", () => {
      for (const bad of [null, 1, "x", [], [{ type: "user" }], {}, { type: 1 }, { type: null }]) {
        assert.isTrue(Result.isFailure(Protocol.decodeMessage(bad)), JSON.stringify(bad))
        assert.isTrue(Result.isFailure(Protocol.decodeStdin(bad)), JSON.stringify(bad))
      }
    })
  })

  describe("errors", () => {
    const firstOf = (kind: string) => clone(recv.find((l) => kindOf(l.msg) === kind)!.msg)
    const failure = (msg: unknown): string => {
      const result = Protocol.decodeMessage(msg)
      assert.isTrue(Result.isFailure(result), JSON.stringify(msg).slice(0, 200))
      return Result.isFailure(result) ? result.failure : ""
    }

    it("a result with a string num_turns says so", () => {
      const result = firstOf("result/success")
      result.num_turns = "x"
      assert.strictEqual(failure(result), `result: Expected number at ["num_turns"]`)
    })

    it("an assistant line without message says so", () => {
      const assistant = firstOf("assistant")
      delete assistant.message
      assert.strictEqual(failure(assistant), `assistant: Missing key at ["message"]`)
    })

    it("a malformed known content block is an error, not an unknown block", () => {
      const assistant = firstOf("assistant")
      ;(assistant.message as Json).content = [{ type: "text", text: 42 }]
      assert.strictEqual(failure(assistant), `assistant: Expected string at ["message"]["content"][0]["text"]`)
      const toolUse = firstOf("assistant")
      ;(toolUse.message as Json).content = [{ type: "tool_use", id: "t", name: "Bash" }]
      assert.include(failure(toolUse), `["message"]["content"][0]["input"]`)
    })

    it("a known system subtype with a broken field is an error", () => {
      const retry = firstOf("system/api_retry")
      retry.attempt = "one"
      assert.strictEqual(failure(retry), `system/api_retry: Expected number at ["attempt"]`)
      const status = firstOf("system/status")
      delete status.session_id
      assert.strictEqual(failure(status), `system/status: Missing key at ["session_id"]`)
    })

    it("a stream_event without a usable event says so", () => {
      const delta = firstOf("stream_event/content_block_delta/text_delta")
      ;(delta.event as Json).delta = { type: "text_delta", text: null }
      assert.strictEqual(
        failure(delta),
        `stream_event/content_block_delta: Expected string at ["event"]["delta"]["text"]`
      )
      const noEvent = firstOf("stream_event/message_stop")
      delete noEvent.event
      assert.strictEqual(failure(noEvent), `stream_event: expected an object at ["event"], got nothing`)
    })

    it("a control_response with an unknown subtype is an error", () => {
      const response = firstOf("control_response/success")
      ;(response.response as Json).subtype = "maybe"
      assert.include(failure(response), "control_response: ")
    })
  })

  describe("extra fields", () => {
    it("are kept, at every level, because decoding returns the parsed object", () => {
      const assistant = clone(recv.find((l) => l.msg.type === "assistant")!.msg)
      assistant.new_top_level = { a: 1 }
      const message = assistant.message as Json
      message.new_in_message = [1]
      ;(message.content as Array<Json>)[0]!.new_in_block = "x"
      const decoded = Result.getOrThrow(Protocol.decodeMessage(assistant))
      assert.strictEqual(decoded, assistant)
      assert.deepStrictEqual(JSON.parse(Protocol.encodeMessage(decoded)), assistant)
    })
  })

  // fast-check runs: seconds of CPU, more on a busy machine; the unit tier's 5 s is for the rest.
  describe("round trips", { timeout: 30_000 }, () => {
    it("stdout: decode → encodeMessage → parse → decode gives the same message", () => {
      for (const l of recv) {
        const decoded = Result.getOrThrow(Protocol.decodeMessage(clone(l.msg)))
        const again = Result.getOrThrow(Protocol.decodeMessage(JSON.parse(Protocol.encodeMessage(decoded))))
        assert.deepStrictEqual(again, decoded, where(l))
        assert.deepStrictEqual(again, l.msg, where(l))
      }
      const unknown = Result.getOrThrow(Protocol.decodeMessage({ type: "later", x: 1 }))
      assert.deepStrictEqual(Result.getOrThrow(Protocol.decodeMessage(JSON.parse(Protocol.encodeMessage(unknown)))), unknown)
    })

    it("stdin: the transcripts' lines and the constructors' messages round-trip", () => {
      const constructed: Array<Protocol.StdinMessage> = [
        Protocol.userTurn({ text: "hi" }),
        Protocol.userTurn({
          text: "What is in these images?",
          images: [{ mediaType: "image/png", data: "iVBORw0KGgo=" }, { mediaType: "image/webp", data: "UklGRg==" }],
          uuid: "11111111-1111-4111-8111-111111111111"
        }),
        Protocol.controlRequest("req_1", { subtype: "initialize", hooks: { Stop: [{ matcher: null, hookCallbackIds: ["h"] }] }, appendSystemPrompt: "x" }),
        Protocol.controlRequest("req_2", { subtype: "interrupt" }),
        Protocol.controlRequest("req_3", { subtype: "set_model" }),
        Protocol.controlRequest("req_4", { subtype: "set_model", model: "haiku" }),
        Protocol.controlRequest("req_5", { subtype: "set_permission_mode", mode: "acceptEdits" }),
        Protocol.controlRequest("req_6", { subtype: "mcp_status" }),
        Protocol.controlRequest("req_7", { subtype: "get_context_usage" }),
        Protocol.controlRequest("req_8", { subtype: "rewind_files", user_message_id: "u", dry_run: true }),
        Protocol.controlRequest("req_9", { subtype: "stop_task", task_id: "t" }),
        Protocol.controlSuccess("cli_1", { mcp_response: { jsonrpc: "2.0", id: 0, result: {} } }),
        Protocol.controlSuccess("cli_2", {}),
        Protocol.controlError("cli_3", "host failure"),
        Protocol.controlError("cli_4", "nope", "unsupported_request"),
        Protocol.controlCancel("cli_5")
      ]
      const transcriptLines = send.filter((l) => bogusFor(l) === undefined).map((l) => l.msg as Protocol.StdinMessage)
      for (const message of [...constructed, ...transcriptLines]) {
        const line = Protocol.encodeStdin(message)
        assert.isFalse(line.endsWith("\n"))
        const decoded = Result.getOrThrow(Protocol.decodeStdin(JSON.parse(line)))
        assert.notStrictEqual(decoded.type, "unknown", line)
        assert.deepStrictEqual(decoded, message)
      }
    })

    it("userTurn writes the protocol's user line: plain text, or images first then text", () => {
      const plain = send.find((l) => l.file === "a-plain-turn" && l.msg.type === "user")!.msg
      assert.deepStrictEqual(JSON.parse(Protocol.encodeStdin(Protocol.userTurn({ text: "Say hello" }))), plain)
      assert.strictEqual(
        Protocol.encodeStdin(Protocol.userTurn({ text: "hi", uuid: "u1" })),
        `{"type":"user","message":{"role":"user","content":"hi"},"parent_tool_use_id":null,"session_id":"","uuid":"u1"}`
      )
      const withImages = Protocol.userTurn({
        text: "compare",
        images: [{ mediaType: "image/png", data: "AAA=" }, { mediaType: "image/jpeg", data: "BBB=" }]
      })
      assert.deepStrictEqual(withImages.message.content, [
        { type: "image", source: { type: "base64", media_type: "image/png", data: "AAA=" } },
        { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "BBB=" } },
        { type: "text", text: "compare" }
      ])
      assert.deepStrictEqual(Protocol.userTurn({ text: "no images", images: [] }).message.content, "no images")
    })

    it("the control constructors write the protocol's envelopes", () => {
      assert.strictEqual(
        Protocol.encodeStdin(Protocol.controlRequest("req_1", { subtype: "interrupt" })),
        `{"type":"control_request","request_id":"req_1","request":{"subtype":"interrupt"}}`
      )
      assert.strictEqual(
        Protocol.encodeStdin(Protocol.controlSuccess("r", { decision: "block", reason: "go on" })),
        `{"type":"control_response","response":{"subtype":"success","request_id":"r","response":{"decision":"block","reason":"go on"}}}`
      )
      assert.strictEqual(
        Protocol.encodeStdin(Protocol.controlError("r", "boom")),
        `{"type":"control_response","response":{"subtype":"error","request_id":"r","error":"boom"}}`
      )
      assert.strictEqual(
        Protocol.encodeStdin(Protocol.controlCancel("r")),
        `{"type":"control_cancel_request","request_id":"r"}`
      )
    })
  })

  it("modelledMessageKinds names every type the full Message schema models, and every system subtype (T6)", () => {
    assert.isTrue(knownTopTypes.has("transcript_mirror"))
    for (const type of knownTopTypes) {
      if (type === "system") continue
      assert.isTrue(Protocol.modelledMessageKinds.includes(type), type)
    }
    for (const subtype of knownSystemSubtypes) {
      assert.isTrue(Protocol.modelledMessageKinds.includes(`system/${subtype}`), subtype)
    }
  })

  describe("guards agree with the full schemas", { timeout: 30_000 }, () => {
    it("on mutations of a few lines of every kind (stdout)", () => {
      let count = 0
      for (const l of representatives(recv, 2)) {
        for (const m of mutationsOf(l.msg, 4, ["system", "assistant", "init", "text_delta", "message_start"])) {
          count++
          const fast = Protocol.decodeMessage(m)
          const full = fullMessageDecode(m)
          if (Result.isSuccess(fast) && fast.success.type === "unknown") {
            // Only an unmodelled type or system subtype may become Unknown.
            const unmodelled = typeof m.type === "string" &&
              (!knownTopTypes.has(m.type) || (m.type === "system" && !knownSystemSubtypes.has(String(m.subtype))))
            assert.isTrue(unmodelled, JSON.stringify(m).slice(0, 300))
            continue
          }
          assert.strictEqual(Result.isSuccess(fast), Result.isSuccess(full), JSON.stringify(m).slice(0, 300))
          if (Result.isSuccess(fast)) assert.strictEqual(fast.success, m)
        }
      }
      assert.isAbove(count, 10_000)
    })

    it("on mutations of a few lines of every kind (stdin)", () => {
      let count = 0
      for (const l of representatives(send.filter((x) => bogusFor(x) === undefined), 2)) {
        for (const m of mutationsOf(l.msg, 4, ["user", "control_request", "interrupt"])) {
          count++
          const fast = Protocol.decodeStdin(m)
          if (Result.isSuccess(fast) && fast.success.type === "unknown") {
            assert.isFalse(
              ["user", "control_request", "control_response", "control_cancel_request", "keep_alive"].includes(
                String(m.type)
              )
            )
            continue
          }
          assert.strictEqual(Result.isSuccess(fast), Result.isSuccess(fullStdinDecode(m)), JSON.stringify(m))
        }
      }
      assert.isAbove(count, 1_000)
    })
  })

  describe("the text_delta fast path", { timeout: 30_000 }, () => {
    const streamEvents = recv.filter((l) => l.msg.type === "stream_event")
    const textDeltas = streamEvents.filter((l) => kindOf(l.msg) === "stream_event/content_block_delta/text_delta")
    const agrees = (m: unknown) => {
      const hand = Protocol.isTextDeltaStreamEvent(m)
      const schema = Result.isSuccess(fullTextDeltaDecode(m))
      assert.strictEqual(hand, schema, JSON.stringify(m))
      return hand
    }

    it("agrees with the schema on every stream_event line of the transcripts", () => {
      assert.isAbove(textDeltas.length, 100)
      let accepted = 0
      for (const l of streamEvents) if (agrees(l.msg)) accepted++
      assert.strictEqual(accepted, textDeltas.length)
    })

    it("agrees with the schema on mutated lines", () => {
      let rejected = 0
      const extraValues = ["stream_event", "content_block_delta", "text_delta", "input_json_delta", ["a", 1], {
        api_message_id: "m",
        from_block_index: "0"
      }]
      for (const l of textDeltas.slice(0, 20)) {
        for (const m of mutationsOf(l.msg, 4, extraValues)) if (!agrees(m)) rejected++
        // Every optional envelope field, present with a right and a wrong value.
        for (
          const [key, good] of [
            ["ttft_ms", 12],
            ["thinking_display", "updates"],
            ["user_message_uuid", "u"],
            ["user_message_uuids", ["u", "v"]],
            ["owed_rows", [{}]],
            ["abandoned_blocks", { api_message_id: "m", from_block_index: 1 }],
            ["resume_reason", "r"],
            ["api_message_id", "m"]
          ] as const
        ) {
          assert.isTrue(agrees({ ...l.msg, [key]: good }), key)
          assert.isFalse(agrees({ ...l.msg, [key]: typeof good === "number" ? "42" : 42 }), key)
          assert.isFalse(agrees({ ...l.msg, [key]: undefined }), key)
          assert.isFalse(agrees({ ...l.msg, [key]: null }), key)
        }
      }
      assert.isAbove(rejected, 1_000)
    })

    it("agrees with the schema on random values at random places", () => {
      const base = textDeltas[0]!.msg
      const paths = pathsOf(base, 4)
      fc.assert(
        fc.property(fc.constantFrom(...paths), fc.jsonValue(), (path, value) => {
          const m = clone(base)
          setAt(m, path, (parent, key) => {
            parent[key] = value
          })
          agrees(m)
          const decoded = Protocol.decodeMessage(m)
          assert.strictEqual(
            Result.isSuccess(decoded),
            Result.isSuccess(fullMessageDecode(m)) || (Result.isSuccess(decoded) && decoded.success.type === "unknown")
          )
        }),
        { numRuns: 3_000 }
      )
    })

    it("is what decodeMessage uses: a valid text delta comes back as the same object", () => {
      for (const l of textDeltas) assert.strictEqual(Result.getOrThrow(Protocol.decodeMessage(l.msg)), l.msg)
    })
  })

  describe("schemas", () => {
    it("every exported schema is structural: its encoded and type ASTs are the schema's own", () => {
      let count = 0
      for (const [name, value] of Object.entries(Protocol)) {
        if (Schema.isSchema(value)) {
          count++
          assert.strictEqual(SchemaAST.toType(value.ast), value.ast, name)
          assert.strictEqual(SchemaAST.toEncoded(value.ast), value.ast, name)
        }
      }
      assert.isAbove(count, 80)
    })

    it("isType and isSubtype narrow open unions", () => {
      const blocks: ReadonlyArray<Protocol.ContentBlock> = [
        { type: "text", text: "a" },
        { type: Protocol.unknownType("document"), source: {} },
        { type: "tool_use", id: "t", name: "Bash", input: {} }
      ]
      const texts = blocks.filter((b) => Protocol.isType(b, "text")).map((b) => b.text)
      assert.deepStrictEqual(texts, ["a"])
      const body: Protocol.IncomingRequestBody = { subtype: "hook_callback", callback_id: "c", input: { hook_event_name: "Stop", session_id: "s", transcript_path: "p", cwd: "/" } }
      assert.isTrue(Protocol.isSubtype(body, "hook_callback") && body.callback_id === "c")
    })
  })
})

// Type-level: makeDecoder refuses a schema with a transformation (it would return the encoded input).
// @ts-expect-error NumberFromString is not structural
void (() => Protocol.makeDecoder(Schema.NumberFromString))

// Type-level: every wire schema's Encoded type is its Type (no transformations).
type Structural<S extends Schema.Top> = [S["Type"]] extends [S["Encoded"]]
  ? [S["Encoded"]] extends [S["Type"]] ? true : false
  : false
const structural: ReadonlyArray<true> = [
  true satisfies Structural<typeof Protocol.Message>,
  true satisfies Structural<typeof Protocol.StdinMessage>,
  true satisfies Structural<typeof Protocol.InitializeResponse>,
  true satisfies Structural<typeof Protocol.ContextUsageResponse>,
  true satisfies Structural<typeof Protocol.PermissionResult>
]
void structural
