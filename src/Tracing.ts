/**
 * Traces and metrics of sessions, through Effect's own `Tracer` and `Metric`: whatever the program
 * provides (`@effect/opentelemetry`'s `NodeSdk.layer` for an OTLP collector, Effect's
 * `effect/observability` exporter, a test tracer) gets the spans; nothing is sent when it
 * provides none.
 *
 * **Spans** (attributes after OpenTelemetry's GenAI semantic conventions where they apply, as
 * `effect/ai`'s `Telemetry` module writes them):
 *
 * | span | from | to | attributes |
 * |---|---|---|---|
 * | `claude.session` | `Claude.open` | the session's scope closes | `gen_ai.conversation.id`, `gen_ai.provider.name`, `gen_ai.request.model`, `claude.cli.version`, `claude.session.end_reason` |
 * | `claude.turn` | `turn` / `run` (under the caller's span, or the session's when there is none); for `send` and the CLI's automatic turns, the first line of the turn (under the session's) | the turn's stream ends | `gen_ai.operation.name` (`invoke_agent`), `gen_ai.usage.input_tokens` / `output_tokens`, `gen_ai.response.finish_reasons`, `claude.cost_usd`, `claude.result.subtype`, `claude.terminal_reason`, `claude.turn.kind`, `claude.error.reason` and `error.type` (a failed turn's reason; the span ends failed, with `errorResults: "return"` too) |
 * | `chat <model>` | the model request the CLI reports: from the moment its input was ready (the turn began, the last tool result came) | the last line of its response | `gen_ai.operation.name` (`chat`), `gen_ai.request.model`, `gen_ai.response.id`, `gen_ai.usage.*`, `gen_ai.response.finish_reasons`, `error.type` (the API's error type, when the CLI reports the request failed: the span ends failed) |
 * | `execute_tool <name>` | the `tool_use` block (built-in and MCP tools alike) | its `tool_result` | `gen_ai.tool.name`, `gen_ai.tool.call.id`, `claude.permission.decision` |
 * | `claude.hook <event>` | the CLI's `hook_callback` (under the tool use it is about) | the answer | `claude.hook.event`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `claude.hook.decision` |
 * | `claude.permission <tool>` | `can_use_tool` (under the tool use) | the decision | `gen_ai.tool.name`, `gen_ai.tool.call.id`, `claude.permission.behavior` |
 * | `claude.mcp <method>` | an in-process MCP server's request (a `tools/call` under its tool use) | the answer | `claude.mcp.server`, `gen_ai.tool.name` |
 * | `claude.control_request <subtype>` | any other control request, either way | the answer | `claude.subtype`, `claude.control.direction` |
 *
 * A request of the CLI's that the library answers with an error (a subtype it does not handle,
 * an MCP server it does not have) ends its span failed, with `claude.error.reason` and
 * `error.type`, as a request of the program's the CLI refuses does (a guard whose handler failed
 * answers with its refusal: a success, its decision `deny`).
 *
 * A subagent's model requests and tool uses are under its `Agent` (`Task`) tool use; one in the
 * background (its `system/task_started` says `is_backgrounded`, as the CLI's `Agent` runs by
 * default) goes on past its turn's result: its spans end at its own lines, its task's
 * `system/task_notification` or the session's end, and its lines start no turn's span.
 *
 * What the CLI does not report cannot be traced: the moment a model request was sent (its span
 * begins when its input was ready), and tools run inside a subagent's own process.
 *
 * **Content** (the prompt, the result text, tool inputs and outputs) is left out unless the
 * program asks for it with {@link TraceContent} (`Layer.succeed(Tracing.TraceContent, true)`);
 * then it is written as `gen_ai.input.messages`, `gen_ai.output.messages`,
 * `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result`, with the session's secrets (the
 * `Redacted` values of its environment, the API key, the account e-mail) replaced by `[redacted]`.
 * No span of a session (those above, `Claude.open`, `Claude.query`, `Turn.finalText`, and the
 * handlers' `Hooks.dispatch`, `Permissions.decide`, `McpServers.handle`, …) ends with a success
 * value, `TraceContent` or not: a tracer that records a span's exit would get the values as the
 * CLI wrote them (the `initialize` answer holds the account e-mail, a settings answer the
 * environment, a permission's allow the tool input); a success is told by the attributes above.
 *
 * **Metrics** (one update per turn result; attributes of low cardinality: the model, the turn's
 * kind and outcome, the tool's name, never a session id): {@link turnDuration},
 * {@link tokenUsage}, {@link turnCost}, {@link turnToolCalls}, {@link toolCalls}. Every update
 * carries its attributes, so `Metric.value(Tracing.turnCost)` alone reads the series of none
 * (always empty): read one series with its attributes, or every series from the registry.
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Metric from "effect/Metric"
 * import { Tracing } from "effect-claude-code"
 *
 * const report = Effect.gen(function*() {
 *   // One series: the cost of the user turns on one model.
 *   const user = yield* Metric.value(Metric.withAttributes(Tracing.turnCost, {
 *     "gen_ai.request.model": "claude-opus-5-5",
 *     "claude.turn.kind": "user"
 *   }))
 *   // Every series of the metric, with its attributes.
 *   const all = (yield* Metric.snapshot).filter((series) => series.id === "claude.turn.cost")
 *   return { user, all }
 * })
 * ```
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import type * as Metric from "effect/Metric"
import * as Metrics from "./internal/metrics.ts"
import * as SpanExits from "./internal/spanExits.ts"

/**
 * Whether spans carry content: prompts, result texts, tool inputs and outputs (secrets
 * replaced). Off by default; read when a session opens.
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import { Tracing } from "effect-claude-code"
 *
 * const withContent = Layer.succeed(Tracing.TraceContent, true)
 * ```
 *
 * @since 0.2.0
 * @category references
 */
export const TraceContent: Context.Reference<boolean> = SpanExits.TraceContent

/**
 * How long each turn took, as the CLI reports it (`duration_ms`), in milliseconds. Attributes:
 * `gen_ai.request.model`, `claude.turn.kind`, `claude.result.subtype`, and for a failed turn
 * `error.type`, the library's reason (`ApiError`, `LimitReached`, …: the CLI writes an API error
 * with subtype `success`).
 *
 * @since 0.2.0
 * @category metrics
 */
export const turnDuration: Metric.Histogram<number> = Metrics.turnDuration()

/**
 * The tokens of each turn per model (GenAI's `gen_ai.client.token.usage`). Attributes:
 * `gen_ai.token.type` (`input`, cached tokens included, or `output`), `gen_ai.request.model`,
 * `gen_ai.provider.name`.
 *
 * @since 0.2.0
 * @category metrics
 */
export const tokenUsage: Metric.Histogram<number> = Metrics.tokenUsage()

/**
 * The cost of the turns in US dollars (each turn's own cost, not the CLI's running total).
 * Attributes: `gen_ai.request.model`, `claude.turn.kind`.
 *
 * @since 0.2.0
 * @category metrics
 */
export const turnCost: Metric.Counter<number> = Metrics.turnCost()

/**
 * How many tool uses each turn made. Attributes: `gen_ai.request.model`, `claude.turn.kind`.
 *
 * @since 0.2.0
 * @category metrics
 */
export const turnToolCalls: Metric.Histogram<number> = Metrics.turnToolCalls()

/**
 * The tool uses, counted when their result comes. Attributes: `gen_ai.tool.name`,
 * `claude.tool.outcome` (`ok` or `error`).
 *
 * @since 0.2.0
 * @category metrics
 */
export const toolCalls: Metric.Counter<number> = Metrics.toolCalls()
