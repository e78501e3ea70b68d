#!/usr/bin/env node
// fake-cli-load.mjs — a load-generating fake `claude` CLI for benchmarks and soak tests.
// No dependencies. Message shapes (and sizes) copied from testdata/protocol/a-plain-turn.ndjson.
//
// Per user message it writes: system/init (~3 KB), system/status, stream_event message_start and
// content_block_start, FAKE_CLI_EVENTS content_block_delta text deltas (~250 bytes a line, some
// non-ASCII), one assistant, content_block_stop, message_delta, message_stop, and a result (~2 KB).
// Output is batched (~64 KiB a write) and respects backpressure (waits for 'drain').
//
// env:
//   FAKE_CLI_EVENTS      deltas per turn (default 1000)
//   FAKE_CLI_BATCH_BYTES bytes per write (default 65536)
//   FAKE_CLI_STOP_HOOK=1 before each result, call the Stop hook registered by `initialize`
//                        (control_request hook_callback) and wait for the host's answer;
//                        result.stop_hook_wait_ms = the wait
//   FAKE_CLI_MCP=1       MCP handshake with sdk server "byre" at start (initialize,
//                        notifications/initialized, tools/list), and before each result a
//                        tools/call of tool "echo"; result.mcp_wait_ms = the wait
//   FAKE_CLI_REPORT_FILE=path  once a turn's result is written, write its extra fields
//                        (stop_hook_wait_ms, …) as JSON to this file, for a host that stops
//                        reading before the result (the slow consumer benchmark)
//   FAKE_CLI_FULL_ASSISTANT=1  the assistant text is the concatenation of all deltas (default:
//                        a short summary, so that the assistant line stays small)
// Control requests: initialize (success), interrupt ({still_queued:[]}; a running turn ends with an
// aborted error_during_execution result), set_model ({model}), anything else: unsupported_request.
// stdin EOF: finish the running turn (and the queued ones), flush, exit 0.
import { randomBytes, randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { makeChain, waitDrain } from "../test/fixtures/serialWriter.mjs"

const env = process.env
const num = (name, dflt) => {
  const v = env[name]
  if (v === undefined || v === "") return dflt
  const n = Number(v)
  return Number.isFinite(n) && n >= 0 ? n : dflt
}
const EVENTS = Math.floor(num("FAKE_CLI_EVENTS", 1000))
const BATCH = Math.max(1024, Math.floor(num("FAKE_CLI_BATCH_BYTES", 64 * 1024)))
const STOP_HOOK = env.FAKE_CLI_STOP_HOOK === "1"
const MCP = env.FAKE_CLI_MCP === "1"
const FULL_ASSISTANT = env.FAKE_CLI_FULL_ASSISTANT === "1"
const VERSION = "2.1.332"
const MODEL_ALIASES = { default: "claude-opus-5-5", opus: "claude-opus-5-5", fable: "claude-fable-5-2", sonnet: "claude-sonnet-5-5", haiku: "claude-haiku-5-5" }
const resolveModel = (m) => (typeof m !== "string" || m === "" ? "claude-opus-5-5" : (MODEL_ALIASES[m] ?? m))

const argv = process.argv.slice(2)
const argValue = (name) => {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === name) return argv[i + 1]
    if (argv[i].startsWith(name + "=")) return argv[i].slice(name.length + 1)
  }
  return undefined
}
let model = resolveModel(argValue("--model"))
const sessionId = argValue("--resume") ?? randomUUID()

// ---------------------------------------------------------------------------------------------
// output with backpressure
const out = process.stdout
out.on("error", () => {})
const write = (s) => (out.destroyed ? undefined : out.write(s) ? undefined : waitDrain(out))
// one writer at a time: control responses never land inside a batch
const enqueue = makeChain()
const send = (obj) => enqueue(() => write(JSON.stringify(obj) + "\n"))
const immediate = () => new Promise((resolve) => setImmediate(resolve))

// ---------------------------------------------------------------------------------------------
// fast ids: a random per-process prefix and a counter
const idPrefix = randomBytes(10).toString("hex") // 20 hex
const uuidPrefix = `${idPrefix.slice(0, 8)}-${idPrefix.slice(8, 12)}-4${idPrefix.slice(12, 15)}-8${idPrefix.slice(15, 18)}-`
let idCounter = 0
const fastUuid = () => uuidPrefix + (idCounter++).toString(16).padStart(12, "0")

// delta texts: 13-24 bytes of text (the real 13-char delta line is ~285 bytes), mixed ASCII and multi-byte, pre-escaped for JSON
const TEXTS = [
  "Hello café → ",
  "日本語のテキスト",
  "plain ASCII text",
  "naïve résumé — ",
  "0123456789 #@%&",
  "Ünïcödé: ß ø å ",
  "mixed 日本 → ok ",
  "emoji 🚀 ✓ done "
].map((t) => JSON.stringify(t))
const textOf = (i) => JSON.parse(TEXTS[i % TEXTS.length])

// ---------------------------------------------------------------------------------------------
// messages (from a-plain-turn)
const initMessage = (extra) => {
  const cwd = process.cwd()
  const home = env.HOME ?? "/root"
  return {
    type: "system", subtype: "init", cwd, session_id: sessionId,
    tools: ["Task", "Bash", "CronCreate", "CronDelete", "CronList", "Edit", "EnterWorktree", "ExitWorktree", "ListAgents", "Monitor", "NotebookEdit", "Read", "ReportFindings", "ScheduleWakeup", "SendMessage", "Skill", "TaskStop", "ToolSearch", "WebFetch", "WebSearch", "Workflow", "Write", "mcp__byre__echo"],
    mcp_servers: [{ name: "byre", status: "connected", source: "sdk" }],
    model, permissionMode: argValue("--permission-mode") ?? "bypassPermissions",
    slash_commands: ["deep-research", "dataviz", "update-config", "verify", "debug", "code-review", "simplify", "batch", "fewer-permission-prompts", "doctor", "loop", "claude-api", "workflow-authoring", "run", "run-skill-generator", "plugin-authoring", "agents", "auto-mode-setup", "autocompact", "clear", "color", "compact", "config", "output-style", "context", "effort", "fast", "focus", "heapdump", "init", "mcp", "model", "__remote-workflow", "workflow-launch-exec", "reload-plugins", "reload-skills", "rename", "security-review", "usage", "insights", "recap", "goal", "list-agents", "team-onboarding"],
    terminal_slash_commands: ["doctor", "color", "focus", "reload-plugins"],
    apiKeySource: "ANTHROPIC_API_KEY", claude_code_version: VERSION, output_style: "default",
    agents: ["claude", "Explore", "general-purpose", "Plan", "statusline-setup"],
    skills: ["deep-research", "dataviz", "update-config", "verify", "debug", "code-review", "simplify", "batch", "fewer-permission-prompts", "doctor", "loop", "claude-api", "workflow-authoring", "run", "run-skill-generator", "plugin-authoring"],
    plugins: [{ name: "cc-plugin-agents-md", path: "builtin", source: "cc-plugin-agents-md@builtin" }, { name: "cc-plugin-privacy", path: "builtin", source: "cc-plugin-privacy@builtin" }, { name: "cc-plugin-plugin-authoring", path: "builtin", source: "cc-plugin-plugin-authoring@builtin" }],
    capabilities: ["interrupt_receipt_v1", "interrupt_cancel_queued_v1", "interrupt_send_now_v1", "interrupt_requeue_taken_v1", "msg_lifecycle_v1", "request_marker_lists_v1", "ask_user_question_unanswered_v1", "lifecycle_wakeup_source_v1", "sdk_mcp_tools_list_changed", "sdk_mcp_manifests", "mcp_read_resource_v1", "mcp_tool_ui_meta_v1", "ui_surface_v1", "mcp_call_result_not_for_model_v1", "mcp_call_soft_error_result_v1", "mcp_call_check_permissions_v1", "voice_call_talk_line_v1", "withdrawn_files_note_v2", "withdrawn_tools_v1", "ui_pane_widget_v1", "reload_plugins_refuse_if_busy_v1", "get_usage_detached_v1", "silent_resend_files_v1"],
    analytics_disabled: true, product_feedback_disabled: true, served_by_anthropic: false, uuid: randomUUID(), sandbox_enabled: false,
    memory_paths: { auto: `${home}/.claude/projects/${cwd.replace(/[^A-Za-z0-9]/g, "-")}/memory/` },
    original_cwd: cwd, additional_directories: [], messaging_socket_path: `${tmpdir()}/cc-socks/${process.pid}.sock`,
    fast_mode_state: "off", fast_mode_disabled_reason: "sdk_opt_in_required", per_turn_effort_active: true,
    ultrathink_available: false, ultrathink_typed_raises: false, view_mode: "default",
    ...extra
  }
}
const initializePayload = (hooks) => ({
  commands: [{ name: "compact", description: "Clear conversation history but keep a summary in context.", argumentHint: "<optional custom summarization instructions>" }],
  agents: [{ name: "claude", description: "Catch-all for any task that doesn't fit a more specific agent." }],
  output_style: "default",
  available_output_styles: ["default", "Proactive", "Concise", "Explanatory", "Learning"],
  user_output_styles_dir: `${env.HOME ?? "/root"}/.claude/output-styles`,
  models: [{ value: "default", resolvedModel: "claude-opus-5-5", displayName: "Default (recommended)", description: "Use the default model (currently Opus 5.5) · $4/$20 per Mtok", supportsEffort: true, supportedEffortLevels: ["low", "medium", "high", "xhigh", "max"], supportsAdaptiveThinking: true, supportsFastMode: true, supportsAutoMode: true, supportsThinkingOff: false }],
  account: { tokenSource: "none", apiKeySource: "ANTHROPIC_API_KEY", apiProvider: "firstParty" },
  pid: process.pid, claude_code_version: VERSION, current_permission_mode: argValue("--permission-mode") ?? "bypassPermissions",
  ...(hooks !== undefined ? { hooks_applied: true } : {}),
  hook_on_failure_supported: true, hooks_when_unanswered_kept: 0, other_hook_ask_outranks_host: true,
  feedback_mode: { kind: "disabled" }, analytics_disabled: true, sandbox_enabled: false,
  remote_control_auto_enable: false, remote_control_auto_connect_default: false, remote_control_available: false,
  remote_control_auto_on_by_default: false, ide_rc_auto_enable_gate: false, fast_mode_state: "off",
  fast_mode_disabled_reason: "sdk_opt_in_required", session_state: "idle",
  capabilities: ["ui_surface_v1", "mcp_call_result_not_for_model_v1", "mcp_call_soft_error_result_v1", "mcp_call_check_permissions_v1", "voice_call_talk_line_v1", "ui_pane_widget_v1", "reload_plugins_refuse_if_busy_v1", "get_usage_detached_v1"]
})
const usageStart = () => ({ input_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, service_tier: "standard" })
const se = (event, messageId, extra) => ({ type: "stream_event", event, session_id: sessionId, parent_tool_use_id: null, uuid: fastUuid(), ...extra, api_message_id: messageId })

let totalCost = 0
let resultIndex = 0
const modelUsage = {}
const usageEntry = (i, o, cost) => ({ inputTokens: i, outputTokens: o, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, webSearchRequests: 0, costUSD: cost, contextWindow: 1000000, maxOutputTokens: 128000, thinkingTokens: 0, cacheCreationEphemeral5mInputTokens: 0, cacheCreationEphemeral1hInputTokens: 0, canonicalModel: model, provider: "firstParty", costBasis: "list" })
const resultMessage = ({ text, outputTokens, messageId, durationMs, aborted, extra }) => {
  const cost = Math.round((100 * 4 + outputTokens * 20) / 1e6 * 1e9) / 1e9
  totalCost = Math.round((totalCost + cost) * 1e9) / 1e9
  const prev = modelUsage[model] ?? usageEntry(0, 0, 0)
  modelUsage[model] = usageEntry(prev.inputTokens + 100, prev.outputTokens + outputTokens, Math.round((prev.costUSD + cost) * 1e9) / 1e9)
  return {
    duration_api_ms: durationMs, stop_reason: aborted ? null : "end_turn", session_id: sessionId, total_cost_usd: totalCost,
    usage: { input_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: outputTokens, output_tokens_details: { thinking_tokens: 0 }, server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 }, service_tier: "standard", cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 }, inference_geo: "", iterations: [], speed: "standard", fallback_credit: null },
    modelUsage: structuredClone(modelUsage), permission_denials: [],
    terminal_reason: aborted ? "aborted_streaming" : "completed", fast_mode_state: "off", fast_mode_disabled_reason: "sdk_opt_in_required",
    subagent_stats: { spawned: 0, requested: { background: 0, foreground: 0, unset: 0 }, started_in_background: 0, max_depth: 0, spawned_by_subagents: 0, completed: 0, failed: 0, killed: { parent: 0, user: 0, system: 0 }, refused: { depth_limit: 0, concurrency_limit: 0, budget: 0 }, by_type: {} },
    safety_stops: 0, is_error: aborted, num_turns: 1,
    subtype: aborted ? "error_during_execution" : "success",
    ...(aborted ? { errors: ["[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null"] } : { api_error_status: null, result: text, ttft_ms: 1 }),
    type: "result", duration_ms: durationMs, uuid: randomUUID(), begun_message_ids: [messageId],
    ...(aborted ? {} : { ttft_stream_ms: 1, time_to_request_ms: 1, first_content_frame_ms: 1 }),
    queued_turn_count: 0, result_index: resultIndex++,
    model_usage_since_last_result: { [model]: usageEntry(100, outputTokens, cost) },
    ...extra
  }
}

// ---------------------------------------------------------------------------------------------
// control channel
const pending = new Map() // our request_id -> resolve
const requestHost = (request) => {
  const request_id = randomUUID()
  // like the real CLI, nothing is asked of the host after stdin EOF
  if (eof) return { request_id, promise: Promise.resolve(null) }
  const p = new Promise((resolve) => pending.set(request_id, resolve))
  void send({ type: "control_request", request_id, request })
  return { request_id, promise: p }
}
let stopHookIds = []
let currentTurn = null
let eof = false

const handleControl = (msg) => {
  const id = msg.request_id
  const req = msg.request ?? {}
  switch (req.subtype) {
    case "initialize": {
      const ids = []
      for (const m of req.hooks?.Stop ?? []) for (const cb of m?.hookCallbackIds ?? []) ids.push(cb)
      stopHookIds = ids
      return send({ type: "control_response", response: { subtype: "success", request_id: id, response: initializePayload(req.hooks), pending_permission_requests: [], pending_user_dialog_requests: [] } })
    }
    case "interrupt":
      if (currentTurn) {
        currentTurn.interrupted = true
        currentTurn.wake()
      }
      return send({ type: "control_response", response: { subtype: "success", request_id: id, response: { still_queued: [] } } })
    case "set_model":
      model = resolveModel(req.model)
      return send({ type: "control_response", response: { subtype: "success", request_id: id, response: { model } } })
    default:
      return send({ type: "control_response", response: { subtype: "error", request_id: id, error: `Unsupported control request subtype: ${req.subtype}`, error_code: "unsupported_request" } })
  }
}

// MCP handshake (like the real CLI with an sdk server in --mcp-config, at spawn)
let mcpId = 0
const mcp = (message) => requestHost({ subtype: "mcp_message", server_name: "byre", message }).promise
const mcpReady = MCP
  ? (async () => {
      await mcp({ method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "claude-code", title: "Claude Code", description: "Anthropic's agentic coding tool", websiteUrl: "https://claude.com/claude-code", version: VERSION } }, jsonrpc: "2.0", id: mcpId++ })
      await mcp({ jsonrpc: "2.0", method: "notifications/initialized" })
      await mcp({ method: "tools/list", jsonrpc: "2.0", id: mcpId++ })
    })()
  : Promise.resolve()

// wait for a host answer, or for an interrupt (then send control_cancel_request), or EOF
const awaitHost = async (turn, { request_id, promise }) => {
  const r = await Promise.race([promise, new Promise((resolve) => { turn.onInterrupt = () => resolve("interrupted") })])
  turn.onInterrupt = null
  if (r === "interrupted") {
    pending.delete(request_id)
    void send({ type: "control_cancel_request", request_id })
  }
  return r
}

// ---------------------------------------------------------------------------------------------
// a turn
const runTurn = async () => {
  await mcpReady
  const started = performance.now()
  const turn = { interrupted: false, onInterrupt: null, wake: () => turn.onInterrupt?.() }
  currentTurn = turn
  const messageId = `msg_load${idPrefix.slice(0, 12)}${(idCounter++).toString(36)}`
  const requestId = `req_load${idPrefix.slice(0, 12)}${(idCounter++).toString(36)}`
  try {
    await send(initMessage())
    await send({ type: "system", subtype: "status", status: "requesting", session_id: sessionId, uuid: fastUuid() })
    await send(se({ type: "message_start", message: { id: messageId, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: usageStart() } }, messageId, { ttft_ms: 1, thinking_display: "updates" }))
    await send(se({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, messageId))

    // the hot loop: one template per delta line, batched into ~BATCH-sized writes
    const P1 = `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`
    const P2 = `}},"session_id":"${sessionId}","parent_tool_use_id":null,"uuid":"`
    const P3 = `","api_message_id":"${messageId}"}\n`
    let written = 0
    await enqueue(async () => {
      let batch = ""
      let batches = 0
      const nTexts = TEXTS.length
      for (let i = 0; i < EVENTS; i++) {
        batch += P1 + TEXTS[i % nTexts] + P2 + uuidPrefix + (idCounter++).toString(16).padStart(12, "0") + P3
        written++
        if (batch.length >= BATCH) {
          const w = write(batch)
          batch = ""
          if (w) await w
          else if ((++batches & 15) === 0) await immediate() // let stdin (interrupts) in on sync outputs
          if (turn.interrupted) break
        }
      }
      if (batch !== "") await write(batch)
    })

    const outputTokens = written
    if (turn.interrupted) {
      await send(se({ type: "content_block_stop", index: 0 }, messageId))
      await send(se({ type: "message_delta", context_management: null, delta: { container: null, stop_details: null, stop_reason: null, stop_sequence: null }, usage: { output_tokens: outputTokens } }, messageId))
      await send(se({ type: "message_stop", abandoned_blocks: { api_message_id: messageId, from_block_index: 0 } }, messageId))
      await send(resultMessage({ outputTokens, messageId, durationMs: Math.round(performance.now() - started), aborted: true, extra: { fake_deltas_written: written } }))
      return
    }

    let text = `(fake-cli-load: ${written} deltas)`
    if (FULL_ASSISTANT) {
      const parts = []
      for (let i = 0; i < written; i++) parts.push(textOf(i))
      text = parts.join("")
    }
    await send({ type: "assistant", message: { id: messageId, type: "message", role: "assistant", model, content: [{ type: "text", text }], stop_reason: null, stop_sequence: null, usage: usageStart(), context_management: null }, parent_tool_use_id: null, session_id: sessionId, uuid: fastUuid(), timestamp: new Date().toISOString(), request_id: requestId })
    await send(se({ type: "content_block_stop", index: 0 }, messageId))
    await send(se({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: outputTokens } }, messageId))
    await send(se({ type: "message_stop" }, messageId))

    const extra = { fake_deltas_written: written }
    if (MCP && !turn.interrupted && !eof) {
      const t0 = performance.now()
      const id = mcpId++
      const r = await awaitHost(turn, requestHost({ subtype: "mcp_message", server_name: "byre", message: { method: "tools/call", params: { name: "echo", arguments: { text: `turn ${resultIndex}` }, _meta: { "claudecode/toolUseId": `toolu_load${id}`, progressToken: id } }, jsonrpc: "2.0", id } }))
      extra.mcp_wait_ms = Math.round((performance.now() - t0) * 1000) / 1000
      extra.mcp_answer = r === "interrupted" || r === null ? null : r.subtype
    }
    if (STOP_HOOK && stopHookIds.length > 0 && !turn.interrupted && !eof) {
      const t0 = performance.now()
      const cwd = process.cwd()
      const r = await awaitHost(turn, requestHost({
        subtype: "hook_callback",
        callback_id: stopHookIds[0],
        input: { session_id: sessionId, transcript_path: `${env.HOME ?? "/root"}/.claude/projects/${cwd.replace(/[^A-Za-z0-9]/g, "-")}/${sessionId}.jsonl`, cwd, prompt_id: randomUUID(), permission_mode: "bypassPermissions", effort: { level: "medium" }, hook_event_name: "Stop", stop_hook_active: false, last_assistant_message: text.slice(0, 200), background_tasks: [], session_crons: [] },
        tool_use_id: randomUUID()
      }))
      extra.stop_hook_wait_ms = Math.round((performance.now() - t0) * 1000) / 1000
      extra.stop_hook_answer = r === "interrupted" || r === null ? null : r.subtype
    }
    const aborted = turn.interrupted
    await send(resultMessage({ text, outputTokens, messageId, durationMs: Math.round(performance.now() - started), aborted, extra }))
    if (env.FAKE_CLI_REPORT_FILE) writeFileSync(env.FAKE_CLI_REPORT_FILE, JSON.stringify(extra))
  } finally {
    if (currentTurn === turn) currentTurn = null
  }
}

// ---------------------------------------------------------------------------------------------
// input
let turns = Promise.resolve()
const handleLine = (line) => {
  if (line.length === 0) return
  let msg
  try {
    msg = JSON.parse(line)
  } catch {
    return
  }
  if (msg === null || typeof msg !== "object") return
  switch (msg.type) {
    case "control_request":
      void handleControl(msg)
      return
    case "control_response": {
      const id = msg.response?.request_id
      const resolve = pending.get(id)
      if (resolve) {
        pending.delete(id)
        resolve(msg.response)
      }
      return
    }
    case "user":
      turns = turns.then(runTurn).catch((e) => process.stderr.write(`fake-cli-load: ${e?.stack ?? e}\n`))
      return
    default:
      return
  }
}
let buffered = ""
process.stdin.setEncoding("utf8")
process.stdin.on("data", (chunk) => {
  buffered += chunk
  let i
  while ((i = buffered.indexOf("\n")) >= 0) {
    handleLine(buffered.slice(0, i))
    buffered = buffered.slice(i + 1)
  }
})
process.stdin.on("end", async () => {
  if (buffered !== "") handleLine(buffered)
  eof = true
  for (const [id, resolve] of pending) {
    pending.delete(id)
    resolve(null)
  }
  await turns
  await enqueue(() => {}) // everything written so far
  if (!out.destroyed && out.writableLength > 0) await new Promise((resolve) => out.write("", resolve))
  process.exit(0)
})
process.on("SIGTERM", () => process.exit(143))
