/**
 * Claude Code as an `effect/ai` `LanguageModel`: `LanguageModel.generateText`, `streamText`,
 * `generateObject` and `Chat` run unchanged on Claude Code sessions, with the toolkit of each call
 * served to the CLI as an in-process MCP server (`McpServers.toolkit`).
 *
 * - **Prompt.** The prompt's system messages become the session's system prompt (else
 *   `options.systemPrompt`, else Claude Code's own). By default every call is a fresh session:
 *   the last user message is the turn (its PNG, JPEG, GIF and WebP images as image blocks: bytes,
 *   base64 or a `data:` URL, an `InvalidRequestError` by any other URL; other files named only; a
 *   message of images alone gets a word for them), earlier messages go before it as a
 *   transcript, one JSON object a message (no message's text passes for another's; their images
 *   sent as image blocks too, before the turn's, each named `[image N]` where it was). With
 *   `conversation: "resume"`, a call that continues a conversation this model answered (a
 *   `Chat`'s next turn) resumes that CLI session by its id and sends only the new user
 *   message: the agent keeps its own context (its tool calls, files read) and the history is not
 *   sent again; a session the CLI no longer has (its files removed, another `cwd`) gives way to
 *   a fresh one with the whole prompt, as does a session another call is resuming at that
 *   moment. A prompt with no message at all is an `InvalidRequestError` (no turn runs).
 * - **Tools.** The call's toolkit (its user-defined tools) is served as the in-process server
 *   `toolkit` (the model sees `mcp__toolkit__<name>`, every character of either name but letters,
 *   digits, `_` and `-` as `_`), allowed without a permission prompt. The
 *   CLI runs the handlers during the turn, so their calls come back as provider-executed
 *   `tool-call` and `tool-result` parts, with the results as the tools' Schemas encode them (a
 *   tool's `toModelOutput` is what the model reads instead, and the part's `modelOutput`; a
 *   history's tool result is sent as its `modelOutput` when it has one).
 *   Claude Code's own tools (`Bash`, `Read`, …) are reported the same way when the toolkit holds
 *   their provider-defined counterpart ({@link Bash}, {@link builtin}); calls of built-in tools the
 *   toolkit does not name are left out of the response (they still ran). A tool with
 *   `needsApproval` is not allowed ahead: the CLI asks the session's `Permissions` for each of its
 *   calls (with none, it refuses them); with `permissionMode` `bypassPermissions` or `auto`, which
 *   ask no one, the call is a `ToolConfigurationError`. `disableToolCallResolution` cannot be
 *   honoured (the handlers run in the turn, and a provider is not told of it), but with
 *   `toolCallValidation: "deferred"`, which a provider sees, a toolkit is an `InvalidRequestError`.
 * - **Streaming.** Text and thinking come as `text-*` and `reasoning-*` deltas as the CLI streams
 *   them (`--include-partial-messages`); the `finish` part carries the finish reason and the
 *   turn's token usage, and `metadata["claude-code"]` its cost, session id, turns and duration.
 *   A turn the model did not end (a hook blocked the prompt, or stopped the turn after a tool)
 *   finishes with `"other"`, the CLI's words under `metadata["claude-code"].result`.
 * - **Objects.** `generateObject` runs the turn with the Schema's JSON Schema as the CLI's
 *   structured output (`--json-schema`), in the Schema's JSON form (an ISO string for a `Date`);
 *   the accepted value is the response's text, read back with the Schema's JSON codec.
 * - **Verbatim.** Each turn goes as written (`verbatimPrompts`, on by default here): the CLI
 *   reads no `@path` mention of the prompt into it and runs no slash command, as a prompt is
 *   text on any provider. `verbatimPrompts: false` turns it off; a CLI older than 2.1.248, which
 *   cannot send a turn so, needs it off, as does a CLI process whose version cannot be told.
 * - **Interruption and failures.** Interrupting the caller (or ending `streamText`'s stream early)
 *   interrupts the CLI turn, then ends the session. A failure is an `AiError` whose reason carries
 *   the library's `ClaudeError` as its `cause` (and its reason tag in `metadata["claude-code"]`).
 *
 * Tool choice limits the tools served: `"none"` serves none, `{ tool }` that one alone, `{ oneOf }`
 * those alone. That the model calls one (`"required"`, `{ tool }`) is not enforced: Claude Code has
 * no such switch.
 *
 * @since 0.2.0
 */
import * as AiError from "effect/ai/AiError"
import type * as IdGenerator from "effect/ai/IdGenerator"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Model from "effect/ai/Model"
import * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Claude from "./Claude.ts"
import * as ClaudeError from "./ClaudeError.ts"
import * as Launch from "./Launch.ts"
import * as McpServers from "./McpServers.ts"
import type * as Protocol from "./Protocol.ts"
import { Transport } from "./Transport.ts"
import { isApiErrorLine } from "./internal/apiErrorLine.ts"
import { stringify } from "./internal/json.ts"

// -----------------------------------------------------------------------------
// Claude Code's own tools
// -----------------------------------------------------------------------------

const BuiltinParameters = Schema.Record(Schema.String, Schema.Unknown)

/**
 * A provider-defined tool for one of Claude Code's own tools: put it in a toolkit to see that
 * tool's calls (parameters as the model sent them, result as the text the CLI gave the model) as
 * provider-executed parts. It needs no handler: the CLI runs it.
 *
 * @since 0.2.0
 * @category tools
 */
export const builtin = <const Name extends string>(name: Name) =>
  Tool.providerDefined({
    id: `claude-code.${name}`,
    customName: name,
    providerName: name,
    parameters: BuiltinParameters,
    success: Schema.String,
    failure: Schema.String
  })()

/**
 * Claude Code's `Bash` tool, to report its calls (see {@link builtin}).
 *
 * @since 0.2.0
 * @category tools
 */
export const Bash = builtin("Bash")

/**
 * Claude Code's `Read` tool, to report its calls (see {@link builtin}).
 *
 * @since 0.2.0
 * @category tools
 */
export const Read = builtin("Read")

/**
 * Claude Code's `Write` tool, to report its calls (see {@link builtin}).
 *
 * @since 0.2.0
 * @category tools
 */
export const Write = builtin("Write")

/**
 * Claude Code's `Edit` tool, to report its calls (see {@link builtin}).
 *
 * @since 0.2.0
 * @category tools
 */
export const Edit = builtin("Edit")

/**
 * Claude Code's `Glob` tool, to report its calls (see {@link builtin}).
 *
 * @since 0.2.0
 * @category tools
 */
export const Glob = builtin("Glob")

/**
 * Claude Code's `Grep` tool, to report its calls (see {@link builtin}).
 *
 * @since 0.2.0
 * @category tools
 */
export const Grep = builtin("Grep")

// -----------------------------------------------------------------------------
// Options
// -----------------------------------------------------------------------------

/**
 * Options of the model: the session options of every call (model, cwd, permission mode,
 * executable, transcript, …), less those the call decides.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options extends
  Omit<
    Claude.SessionOptions<never>,
    "outputFormat" | "jsonSchema" | "resume" | "includePartialMessages" | "errorResults"
  >
{
  /**
   * `"fresh"` (default): every call is a new session, earlier messages sent as a transcript.
   * `"resume"`: a call that continues a conversation this model answered resumes its CLI session
   * and sends only the new messages (the session must be kept: `persistSession` not `false`, the
   * same `cwd`).
   */
  readonly conversation?: "fresh" | "resume" | undefined
  /** The name of the in-process server of the call's toolkit (default `"toolkit"`). */
  readonly toolServerName?: string | undefined
}

/**
 * The key of this provider's metadata in `finish` parts and error reasons.
 *
 * @since 0.2.0
 * @category models
 */
export const metadataKey = "claude-code"

// -----------------------------------------------------------------------------
// The model
// -----------------------------------------------------------------------------

/**
 * Makes the `LanguageModel` service. Sessions use the `Transport` given here; `Hooks`,
 * `Permissions` and `McpServers` are taken from each call's context, as `Claude.open` does.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: (options?: Options) => Effect.Effect<LanguageModel.LanguageModel, never, Transport> = Effect.fn(
  "ClaudeCodeLanguageModel.make"
)(function*(options: Options = {}) {
  const transport = yield* Transport
  const stream = (providerOptions: LanguageModel.ProviderOptions, text: TextSource) =>
    streamParts(options, providerOptions, conversations, text).pipe(Stream.provideService(Transport, transport))
  return yield* LanguageModel.make({
    codecTransformer,
    // The whole answer: its text from the CLI's complete messages, so that an attempt the CLI
    // abandoned mid-stream (and retried) is not part of it.
    generateText: (providerOptions) =>
      Effect.map(Stream.runCollect(stream(providerOptions, "messages")), (parts) => collapse(Array.from(parts))),
    streamText: (providerOptions) => stream(providerOptions, "deltas")
  })
})

/**
 * A layer providing `LanguageModel.LanguageModel` on Claude Code sessions (see the module's
 * comment). Needs a `Transport`: `ClaudeNode.layer` for the real CLI.
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as LanguageModel from "effect/ai/LanguageModel"
 * import { ClaudeCodeLanguageModel } from "effect-claude-code/ai"
 * import { ClaudeNode } from "effect-claude-code/node"
 *
 * const program = LanguageModel.generateText({ prompt: "Say hello" }).pipe(
 *   Effect.provide(ClaudeCodeLanguageModel.layer({ model: "sonnet" })),
 *   Effect.provide(ClaudeNode.layer)
 * )
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<LanguageModel.LanguageModel, never, Transport> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/**
 * The model as an `effect/ai` `Model`: {@link layer} with `model` set, plus `Model.ProviderName`
 * (`"claude-code"`) and `Model.ModelName`, for programs that choose among providers (an
 * `ExecutionPlan` falling back from one model to another).
 *
 * @since 0.2.0
 * @category layers
 */
export const model = <const Name extends string>(
  modelName: Name,
  options?: Omit<Options, "model">
): Model.Model<"claude-code", LanguageModel.LanguageModel, Transport> =>
  Model.make("claude-code", modelName, layer({ ...options, model: modelName }))

// -----------------------------------------------------------------------------
// One call
// -----------------------------------------------------------------------------

/** The CLI session to resume, and the messages it has not seen. */
interface Resume {
  readonly sessionId: string
  readonly messages: ReadonlyArray<Prompt.Message>
  /** The last message of the prompt the session answered (its key in `Conversations`). */
  readonly answered?: Prompt.Message
}

/** With `conversation: "resume"`: the session that answered the earlier messages, if any. */
const resumeOf = (
  options: Options,
  providerOptions: LanguageModel.ProviderOptions,
  tracker: Conversations
): Resume | undefined => {
  if (options.conversation !== "resume") return undefined
  // Always the library's own record, never `effect/ai`'s `ResponseIdTracker` (`previousResponseId`):
  // that one keeps an id per message object, so two Chats sharing a history (or a fork) would
  // resume whichever session answered last, and see each other's turns.
  return tracker.prepare(providerOptions.prompt.content)
}

/**
 * The CLI refused to resume `sessionId`: the session is gone (its files removed, another `cwd`).
 * CLI 2.1.332 writes an error `result` (`errors: ["No conversation found with session ID: <id>"]`),
 * which fails the turn, then exits with the same words on stderr, which fail it when it comes first.
 */
const isSessionGone = (sessionId: string) => (error: unknown): boolean => {
  if (!ClaudeError.isClaudeError(error)) return false
  const said = `No conversation found with session ID: ${sessionId}`
  const reason = error.reason
  if (reason._tag === "ProcessExited") return reason.stderrTail.includes("No conversation found")
  if (reason._tag !== "TurnFailed" || !Predicate.hasProperty(reason.result, "errors")) return false
  const errors = reason.result.errors
  return Array.isArray(errors) && errors.some((line) => Predicate.isString(line) && line.includes(said))
}

/**
 * One call: resumes the conversation's session when there is one; if the CLI no longer has it,
 * starts a fresh session with the whole prompt instead.
 */
const streamParts = (
  options: Options,
  providerOptions: LanguageModel.ProviderOptions,
  tracker: Conversations,
  text: TextSource
): Stream.Stream<Response.StreamPartEncoded, AiError.AiError, IdGenerator.IdGenerator | Transport> => {
  // The session is claimed when the stream runs, and released when it ends: one call at a time.
  const stream = Stream.suspend(() => {
    const resume = resumeOf(options, providerOptions, tracker)
    return resume === undefined
      ? streamTurn(options, providerOptions, tracker, undefined, text)
      : streamTurn(options, providerOptions, tracker, resume, text).pipe(
        Stream.catchIf(
          isSessionGone(resume.sessionId),
          () => streamTurn(options, providerOptions, tracker, undefined, text)
        ),
        Stream.ensuring(Effect.sync(() => tracker.release(resume)))
      )
  })
  return Stream.mapError(stream, (error) =>
    ClaudeError.isClaudeError(error) ? fromClaudeError(methodOf(providerOptions, text), error) : error)
}

const streamTurn = (
  options: Options,
  providerOptions: LanguageModel.ProviderOptions,
  tracker: Conversations,
  resumed: Resume | undefined,
  text: TextSource
): Stream.Stream<
  Response.StreamPartEncoded,
  AiError.AiError | ClaudeError.ClaudeError,
  IdGenerator.IdGenerator | Transport
> => Stream.unwrap(openTurn(options, providerOptions, tracker, resumed, text))

// One generator function for the module, not one per call (docs/CONTRIBUTING.md).
const openTurn = Effect.fnUntraced(function*(
  options: Options,
  providerOptions: LanguageModel.ProviderOptions,
  tracker: Conversations,
  resumed: Resume | undefined,
  text: TextSource
) {
  const { conversation, toolServerName = "toolkit", ...sessionOptions } = options
  const method = methodOf(providerOptions, text)
  // Nothing to answer: never an agent turn on a made-up ask (a history the program lost).
  const invalidPrompt = (description: string) =>
    Effect.fail(aiError(method, new AiError.InvalidRequestError({ parameter: "prompt", description })))
  if (providerOptions.prompt.content.length === 0) {
    return yield* invalidPrompt("the prompt has no message: give it a user message (or a system message to answer)")
  }
  const resume = resumed?.sessionId
  const toSend = resumed?.messages ?? providerOptions.prompt.content
  // An image of the turn the CLI cannot take: never a turn answered as if it were not there.
  const urlImage = imageUrlOf(toSend)
  if (urlImage !== undefined) {
    return yield* invalidPrompt(
      `the user message's image ${urlImage} is given by URL: Claude Code takes an image's bytes or base64 (fetch it first)`
    )
  }
  const rendered = renderPrompt(providerOptions.prompt.content, toSend)

  // The call's toolkit, served in process; its handlers are in the caller's context.
  const userTools = servedTools(providerOptions)
  const reported = new Set(providerOptions.tools.filter(Tool.isProviderDefined).map((tool) => tool.name))
  const results = new ToolkitResults()
  // Calls left to the program (`disableToolCallResolution`, seen here by its deferred validation):
  // the CLI would run the handlers in the turn, so none is served.
  if (userTools.length > 0 && providerOptions.toolCallValidation === "deferred") {
    return yield* Effect.fail(aiError(
      method,
      new AiError.InvalidRequestError({
        parameter: "disableToolCallResolution",
        description: "Claude Code runs the toolkit's handlers during the turn: it cannot leave the model's calls " +
          "of the toolkit's tools to the program"
      })
    ))
  }
  const services = yield* Effect.context<never>()
  const missing = userTools.filter((tool) => !services.mapUnsafe.has(tool.id))
  if (missing.length > 0) {
    return yield* Effect.fail(aiError(
      method,
      new AiError.ToolConfigurationError({
        toolName: missing[0]!.name,
        description: "its handler is not in the context: pass the Toolkit itself (not its resolved " +
          "handlers) as the toolkit of the call, with `toolkit.toLayer(...)` provided (Claude Code runs the " +
          "handlers during the turn, even with disableToolCallResolution)"
      })
    ))
  }
  // A tool that needs approval runs only when the session's `Permissions` allow its call: a mode
  // in which the CLI asks no one (everything allowed, or a classifier deciding) would run it unasked.
  const needsApproval = userTools.find(McpServers.needsApproval)
  if (needsApproval !== undefined && Launch.asksNoOne(sessionOptions.permissionMode)) {
    return yield* Effect.fail(aiError(
      method,
      new AiError.ToolConfigurationError({
        toolName: needsApproval.name,
        description: `it needs approval (needsApproval), which permissionMode "${sessionOptions.permissionMode}" ` +
          "never asks for: use a mode that asks the session's Permissions, or leave the tool out of the call"
      })
    ))
  }
  const current = yield* McpServers.current
  const mcpServers = userTools.length === 0 ? current : {
    servers: [
      ...current.servers,
      ...(yield* (McpServers.registerAll([
        McpServers.toolkit(toolServerName, Toolkit.make(...userTools), {
          alwaysLoad: true,
          onResult: (result) => Effect.sync(() => results.add(result))
        }) as McpServers.Server<unknown>
      ]) as Effect.Effect<ReadonlyArray<McpServers.RegisteredServer>, ClaudeError.ClaudeError>).pipe(
        Effect.mapError((error) =>
          aiError(
            method,
            new AiError.ToolConfigurationError({ toolName: userTools[0]!.name, description: error.message })
          )
        )
      ))
    ]
  }
  // The toolkit's server beside the program's: one name for two, or two tools the model would
  // see as one, would serve the model the wrong handler.
  const namesProblem = McpServers.namesProblem(mcpServers.servers)
  if (namesProblem !== undefined) {
    return yield* Effect.fail(aiError(
      method,
      new AiError.ToolConfigurationError({
        toolName: userTools[0]?.name ?? toolServerName,
        description: `the call's toolkit, served as MCP server "${toolServerName}" (the toolServerName option), ` +
          `cannot be served beside the session's in-process servers: ${namesProblem}`
      })
    ))
  }
  // The names the CLI shows the model and matches `allowedTools` against (every character but
  // letters, digits, `_` and `-` as `_`); the check above keeps them one tool each.
  const prefix = `mcp__${McpServers.modelFacing(toolServerName)}__`

  const jsonSchema = providerOptions.responseFormat.type === "json"
    ? codecTransformer(
      providerOptions.responseFormat.schema as Schema.Codec<unknown, unknown>
    ).jsonSchema as Readonly<Record<string, unknown>>
    : undefined
  const sessionOptionsOfCall: Claude.SessionOptions = {
    ...sessionOptions,
    ...(rendered.system !== undefined ? { systemPrompt: rendered.system } : {}),
    ...(resume !== undefined ? { resume } : {}),
    ...(jsonSchema !== undefined ? { jsonSchema } : {}),
    // A tool that needs approval (`needsApproval`, a function of its parameters too) is not
    // allowed ahead: the CLI asks the session's `Permissions` for each call (with none, it refuses).
    allowedTools: [
      ...(sessionOptions.allowedTools ?? []),
      ...userTools.filter((tool) => !McpServers.needsApproval(tool)).map((tool) => prefix + McpServers.modelFacing(tool.name))
    ],
    includePartialMessages: true,
    // A prompt is text, as on any provider: no `@path` mention read in, no slash command run.
    verbatimPrompts: sessionOptions.verbatimPrompts ?? true
  }

  // The session gets a scope of its own, closed after the turn's stream: a stream ended early
  // (a consumer interrupted, `Stream.take`) then interrupts the turn on the CLI (and waits for its
  // `aborted_*` result) while the session is still open, before the CLI is ended.
  const sessionScope = yield* Scope.make()
  yield* Effect.addFinalizer((exit) => Scope.close(sessionScope, exit))
  const session = yield* Claude.open(sessionOptionsOfCall).pipe(
    Effect.provideService(McpServers.McpServers, mcpServers),
    Scope.provide(sessionScope)
  )
  const toolkit = new Map(
    userTools.map((tool) => [McpServers.modelFacing(tool.name), { name: tool.name, read: paramsReader(tool) }])
  )
  const state = new MappingState(prefix, toolkit, reported, results, jsonSchema !== undefined, text)
  let finished = false
  // What the session answers, kept only for a conversation that may resume it.
  const reply = conversation === "resume" ? new Reply() : undefined
  return session.turn(rendered.input).pipe(
    Stream.flatMap((event) => Stream.fromIterable(state.map(event))),
    Stream.tap((part) =>
      Effect.sync(() => {
        reply?.add(part)
        if (part.type !== "finish") return
        finished = true
        if (reply !== undefined && state.sessionId !== undefined) {
          tracker.mark(providerOptions.prompt.content, state.sessionId, resumed, reply)
        }
      })
    ),
    // A resumed turn that ended without its result (interrupted, stalled, timed out, the CLI
    // gone) left its message in the session, which the conversation does not hold: that session
    // is not resumed again (the next call starts a fresh one with the whole prompt).
    Stream.ensuring(Effect.sync(() => {
      if (!finished && resumed !== undefined) tracker.forget(resumed)
    }))
  )
})

/**
 * The structured output's JSON Schema is the Schema's JSON form (an ISO string for a `Date`, a
 * string for a `BigInt`, `null` for an absent optional field), so `generateObject` reads the
 * CLI's value with the Schema's JSON codec: a value the JSON Schema accepts is never refused as a
 * wrong answer for its form.
 */
const codecTransformer: LanguageModel.CodecTransformer = (schema) => ({
  codec: Schema.toCodecJson(schema),
  jsonSchema: LanguageModel.defaultCodecTransformer(schema).jsonSchema
})

/** The `effect/ai` method a call serves, for its errors: `generateText` takes whole messages. */
const methodOf = (providerOptions: LanguageModel.ProviderOptions, text: TextSource): string =>
  providerOptions.responseFormat.type === "json" ? "generateObject" : text === "messages" ? "generateText" : "streamText"

/** A prompt a CLI session answered: the exact message objects sent, in order. */
interface Answered {
  readonly sessionId: string
  readonly messages: ReadonlyArray<Prompt.Message>
  /** What the session answered (its {@link Reply}): a history whose reply says otherwise was edited. */
  readonly reply: string
}

/**
 * What a reply says, as one string: its text, and the ids of its tool calls, in order. The
 * session's reply is read from the parts it streamed, a history's from its messages' parts
 * (`effect/ai` makes the messages of a reply from its parts, text deltas joined).
 */
class Reply {
  private text = ""
  private readonly calls: Array<string> = []

  /** Reads one part of a response (stream) or of a message. */
  add(part: Part | Prompt.AssistantMessage["content"][number]): void {
    if (part.type === "text-delta") this.text += part.delta
    else if (part.type === "text") this.text += part.text
    else if (part.type === "tool-call") this.calls.push(part.id)
  }

  toString(): string {
    return JSON.stringify([this.text, this.calls])
  }

  /** What the assistant messages of a history say. */
  static of(messages: ReadonlyArray<Prompt.Message>): string {
    const reply = new Reply()
    for (const message of messages) {
      if (message.role === "assistant") for (const part of message.content) reply.add(part)
    }
    return reply.toString()
  }
}

/**
 * Which CLI session answered which prompt (weakly held, by the prompt's last message: a
 * conversation dropped is forgotten), so that a `Chat`'s next turn can resume it. Like `effect/ai`'s
 * `ResponseIdTracker`, but never cleared by another conversation: several `Chat`s may share the
 * model, and may share a history's message objects.
 *
 * A prompt resumes a session only when everything before the session's reply is, object for
 * object, the prompt that session answered last; a session resumed moves on, so the prompt it
 * answered before no longer resumes it (a `Chat` forked from that point starts afresh).
 */
class Conversations {
  private readonly answered = new WeakMap<Prompt.Message, Answered>()
  /**
   * The sessions a call is resuming now: another call that continues the same prompt at once
   * (a fork, parallel continuations) starts afresh, never appends its turn to the same session.
   */
  private readonly inUse = new Set<string>()

  /** The call that resumed `resumed`'s session has ended. */
  release(resumed: Resume): void {
    this.inUse.delete(resumed.sessionId)
  }

  /** The session `resumed` named answers its prompt no longer (a turn ran there without a result). */
  forget(resumed: Resume): void {
    if (resumed.answered !== undefined) this.answered.delete(resumed.answered)
  }

  mark(messages: ReadonlyArray<Prompt.Message>, sessionId: string, resumed: Resume | undefined, reply: Reply): void {
    if (resumed?.answered !== undefined) this.answered.delete(resumed.answered)
    const last = messages.at(-1)
    if (last !== undefined) this.answered.set(last, { sessionId, messages, reply: reply.toString() })
  }

  /**
   * The session to resume and the messages after its reply, when the messages before its reply are
   * the prompt it answered, its reply is what it said, and no other call is resuming it (then
   * claimed: {@link release} it).
   */
  prepare(messages: ReadonlyArray<Prompt.Message>): Resume | undefined {
    const lastAssistant = messages.findLastIndex((message) => message.role === "assistant")
    if (lastAssistant <= 0 || lastAssistant === messages.length - 1) return undefined
    // The reply: the assistant (and tool) messages ending with the last assistant message.
    let end = lastAssistant
    while (end > 0 && (messages[end - 1]!.role === "assistant" || messages[end - 1]!.role === "tool")) end--
    if (end === 0) return undefined
    const key = messages[end - 1]!
    const answered = this.answered.get(key)
    if (
      answered === undefined || answered.messages.length !== end ||
      answered.messages.some((message, i) => message !== messages[i]) || this.inUse.has(answered.sessionId) ||
      Reply.of(messages.slice(end, lastAssistant + 1)) !== answered.reply
    ) return undefined
    this.inUse.add(answered.sessionId)
    return { sessionId: answered.sessionId, messages: messages.slice(lastAssistant + 1), answered: key }
  }
}

/**
 * One record for every model of the program: a model built for each call (`Effect.provide` around
 * each `generateText`, an `ExecutionPlan`) resumes what another answered. Weakly held, so nothing
 * outlives the conversations; a session of another `cwd` is one the CLI does not find, and a fresh
 * one takes its place.
 */
const conversations = new Conversations()

// -----------------------------------------------------------------------------
// Prompt → turn
// -----------------------------------------------------------------------------

interface RenderedPrompt {
  readonly system: string | undefined
  readonly input: Claude.TurnInput
}

const imageTypes: ReadonlyArray<string> = ["image/png", "image/jpeg", "image/gif", "image/webp"]

type TurnImage = NonNullable<Protocol.UserTurnInput["images"]>[number]

/** An image given by a URL the CLI cannot take (any but a `data:` URL). */
const isUrlImage = (part: Prompt.FilePart): part is Prompt.FilePart & { readonly data: URL } =>
  imageTypes.includes(part.mediaType) && part.data instanceof URL && part.data.protocol !== "data:"

const isImage = (part: Prompt.FilePart): boolean => imageTypes.includes(part.mediaType) && !isUrlImage(part)

/** The images of a user message (PNG, JPEG, GIF, WebP given as bytes, base64 or a `data:` URL), sent as image blocks. */
const imagesOf = (message: Prompt.Message): ReadonlyArray<TurnImage> => {
  if (message.role !== "user") return []
  const images: Array<TurnImage> = []
  for (const part of message.content) {
    if (part.type !== "file" || !isImage(part)) continue
    const given = part.data instanceof URL ? part.data.href : part.data
    const data = typeof given === "string" ? given.replace(/^data:[^,]*;base64,/, "") : Base64.encode(given)
    images.push({ mediaType: part.mediaType as TurnImage["mediaType"], data })
  }
  return images
}

/**
 * The call's own tools the toolkit's server serves: none for `"none"`, the named one for
 * `{ tool }` (`{ oneOf }` is applied by `LanguageModel` itself, before the call).
 */
const servedTools = (options: LanguageModel.ProviderOptions): ReadonlyArray<Tool.Any> => {
  const choice = options.toolChoice
  if (choice === "none") return []
  const own = options.tools.filter((tool) => !Tool.isProviderDefined(tool))
  return typeof choice === "object" && "tool" in choice ? own.filter((tool) => tool.name === choice.tool) : own
}

/** The URL of an image (PNG, JPEG, GIF, WebP) the turn's user message gives by URL, if any. */
const imageUrlOf = (toSend: ReadonlyArray<Prompt.Message>): string | undefined => {
  const last = toSend.filter((message) => message.role !== "system").at(-1)
  if (last?.role !== "user") return undefined
  for (const part of last.content) {
    if (part.type === "file" && isUrlImage(part)) return part.data.href
  }
  return undefined
}

/** The system prompt (from the whole prompt), and the turn's text (from the messages to send). */
const renderPrompt = (all: ReadonlyArray<Prompt.Message>, toSend: ReadonlyArray<Prompt.Message>): RenderedPrompt => {
  const systems = all.filter((message) => message.role === "system").map((message) => message.content)
  const rest = toSend.filter((message) => message.role !== "system")
  const last = rest.at(-1)
  const earlier = last?.role === "user" ? rest.slice(0, -1) : rest
  // Every image the CLI can take goes as an image block, in order: the earlier messages' first
  // (the fresh session sees nothing but what is sent; the transcript names each `[image N]`),
  // then the turn's own.
  const images: Array<TurnImage> = []
  // One JSON object a message: no message's text can pass for another message (a user's
  // "\n\nAssistant: ..." stays inside its own string).
  const lines = earlier.map((message) => {
    const content = messageText(message, images.length + 1)
    images.push(...imagesOf(message))
    return JSON.stringify({ role: message.role, content })
  })
  const own = last === undefined ? [] : imagesOf(last)
  images.push(...own)
  const text = last?.role === "user" ? messageText(last, "sent") : "Continue."
  // A turn needs text: a message of images alone gets a word for them.
  const ask = text.trim() === "" && own.length > 0 ? "(see the image)" : text
  const input = earlier.length === 0
    ? ask
    : `The conversation so far, one message a line as JSON:\n${lines.join("\n")}\n\nNow: ${ask}`
  return {
    system: systems.length === 0 ? undefined : systems.join("\n\n"),
    input: images.length === 0 ? input : { text: input, images }
  }
}

/**
 * A message's text. Its images sent as image blocks ({@link imagesOf}) are left out (`"sent"`:
 * the turn's own) or named by their place among the blocks (`[image N]`, the first being
 * `images`); other files, and images by URL, are named only.
 */
const messageText = (message: Prompt.Message, images: "sent" | number): string => {
  if (message.role === "system") return message.content
  let image = images === "sent" ? 0 : images
  const lines: Array<string> = []
  for (const part of message.content) {
    switch (part.type) {
      case "text":
        lines.push(part.text)
        break
      // With the call's id on both: parallel calls of one tool stay paired with their results.
      case "tool-call":
        lines.push(`[called ${part.name} (call ${part.id}) with ${stringify(part.params)}]`)
        break
      // What the model read of it: its model output (`toModelOutput`) in place of the result.
      case "tool-result":
        lines.push(
          `[${part.name} (call ${part.id}) ${part.isFailure ? "failed with" : "returned"} ${
            part.modelOutput !== undefined ? stringify(Prompt.toolModelOutputToText(part.modelOutput)) : stringify(part.result)
          }]`
        )
        break
      case "file":
        if (message.role === "user" && isImage(part)) {
          const name = part.fileName !== undefined ? ` (${part.fileName})` : ""
          if (images !== "sent") lines.push(`[image ${image++}${name}]`)
        } else lines.push(`[file ${part.fileName ?? part.mediaType}]`)
        break
      default:
        break
    }
  }
  return lines.join("\n")
}

// -----------------------------------------------------------------------------
// Events → parts
// -----------------------------------------------------------------------------

type Part = Response.StreamPartEncoded

/**
 * Where a call's text comes from: the stream's deltas as they come (`streamText`; a message the
 * CLI did not stream, as a retry after a stream broke off, from its `assistant` line), or the
 * complete `assistant` lines alone (`generateText`: an attempt abandoned mid-stream is not part of
 * the answer).
 */
type TextSource = "deltas" | "messages"

/**
 * What the toolkit's handlers gave, for the `tool_result` lines: by the CLI's tool-use id, else
 * (a call without the CLI's `_meta` id) first in, first out per tool.
 */
class ToolkitResults {
  private readonly byId = new Map<string, McpServers.ToolkitCallResult>()
  private readonly unattributed = new Map<string, Array<McpServers.ToolkitCallResult>>()

  add(result: McpServers.ToolkitCallResult): void {
    if (result.toolUseId !== undefined) {
      this.byId.set(result.toolUseId, result)
      return
    }
    const queue = this.unattributed.get(result.name)
    if (queue === undefined) this.unattributed.set(result.name, [result])
    else queue.push(result)
  }

  /**
   * The result of the use `id` of the tool `name` with `params` (the arguments as the model sent
   * them, as `McpServers` reports them); undefined when its handler gave none. Without the CLI's
   * id, the first result of that tool with the same arguments that failed as the model read it
   * (`isError`, the CLI's `tool_result`): calls with the same arguments run at once finish in any
   * order, and a failure the model read is never the program's success (nor the reverse).
   */
  take(id: string, name: string, params: unknown, isError: boolean): McpServers.ToolkitCallResult | undefined {
    const result = this.byId.get(id)
    if (result !== undefined) {
      this.byId.delete(id)
      return result
    }
    const queue = this.unattributed.get(name)
    if (queue === undefined) return undefined
    const wanted = stringify(params)
    const at = queue.findIndex((candidate) => candidate.isFailure === isError && stringify(candidate.params) === wanted)
    return at === -1 ? undefined : queue.splice(at, 1)[0]
  }
}

/**
 * A toolkit call's arguments read into its parameters' encoded form; undefined when they do not
 * read, or when the parameters do not decode from it.
 */
type ParamsReader = (input: unknown) => { readonly params: unknown } | undefined

/** A toolkit tool as the model sees it: its name in the toolkit, and its reader of arguments. */
interface ToolkitTool {
  readonly name: string
  readonly read: ParamsReader
}

/**
 * Reads a toolkit call's arguments, which come in the JSON form `tools/list` advertises (`null`
 * for an absent optional field, an ISO string for a Date), into the parameters' encoded form:
 * what `McpServers.toolkit` gives the handler, and what `effect/ai` checks a provider-executed
 * call's params against. Arguments count only when the parameters decode from that form too
 * (`{ n: "abc" }` is an encoded `FiniteFromString`, which does not decode): the toolkit refused
 * them, and `effect/ai` decodes the call's params with the whole parameters schema and would fail
 * the response. A dynamic tool's own JSON Schema is taken as it is. The codecs are made at the
 * first call (`McpServers` refuses a tool whose parameters JSON cannot carry, first).
 */
const paramsReader = (tool: Tool.Any): ParamsReader => {
  if (Tool.isDynamic(tool) && tool.jsonSchema !== undefined) return (input) => ({ params: input })
  let codecs:
    | {
      readonly fromJson: (input: unknown) => Result.Result<unknown, unknown>
      readonly decode: (encoded: unknown) => Result.Result<unknown, unknown>
    }
    | undefined
  return (input) => {
    const parameters = tool.parametersSchema as unknown as Schema.Codec<unknown, unknown>
    codecs ??= {
      fromJson: Schema.decodeUnknownResult(Schema.toCodecJson(Schema.toEncoded(parameters))),
      decode: Schema.decodeUnknownResult(parameters)
    }
    const read = codecs.fromJson(input)
    return Result.isSuccess(read) && Result.isSuccess(codecs.decode(read.success)) ? { params: read.success } : undefined
  }
}

class MappingState {
  sessionId: string | undefined
  private message = 0
  private readonly open = new Map<number, "text" | "reasoning">()
  /**
   * The tool name of each use reported, whether it is the toolkit's, and its arguments as the model
   * sent them (what `McpServers` reports a toolkit call's with); `refused`: a toolkit call whose
   * arguments its tool refused, left out.
   */
  private readonly calls = new Map<
    string,
    { readonly name: string; readonly toolkit: boolean; readonly input: unknown; readonly refused: boolean }
  >()
  /** The ids of the messages the CLI streamed (their text came as deltas). */
  private readonly streamed = new Set<string>()

  /** `mcp__<toolServerName>__` as the model sees it. */
  readonly prefix: string
  /** The toolkit's tools by the name the model sees after {@link prefix}. */
  readonly toolkit: ReadonlyMap<string, ToolkitTool>
  readonly reported: ReadonlySet<string>
  readonly results: ToolkitResults
  readonly structured: boolean
  readonly text: TextSource

  constructor(
    prefix: string,
    toolkit: ReadonlyMap<string, ToolkitTool>,
    reported: ReadonlySet<string>,
    results: ToolkitResults,
    structured: boolean,
    text: TextSource
  ) {
    this.prefix = prefix
    this.toolkit = toolkit
    this.reported = reported
    this.results = results
    this.structured = structured
    this.text = text
  }

  private blockId(index: number): string {
    return `${this.message}:${index}`
  }

  /**
   * The name a `tool_use` (under the name the model sees) is reported under, with the toolkit's
   * reader of its arguments when it is the toolkit's; undefined to leave it out.
   */
  private tool(name: string): { readonly name: string; readonly read: ParamsReader | undefined } | undefined {
    if (name.startsWith(this.prefix)) return this.toolkit.get(name.slice(this.prefix.length))
    return this.reported.has(name) ? { name, read: undefined } : undefined
  }

  map(event: Claude.Event): ReadonlyArray<Part> {
    switch (event.type) {
      case "system":
        if (event.subtype === "init" && Predicate.hasProperty(event, "session_id")) {
          this.sessionId = String(event.session_id)
          const model = Predicate.hasProperty(event, "model") && Predicate.isString(event.model) ? event.model : undefined
          // No response `id`: with `effect/ai`'s `ResponseIdTracker` in the context, an id makes
          // its next call "incremental", whose fallback on an `InvalidRequestError` runs the whole
          // agent turn again (tools and all). The session id is the provider's metadata.
          return [{
            type: "response-metadata",
            ...(model !== undefined ? { modelId: model } : {}),
            metadata: { "claude-code": { sessionId: this.sessionId } }
          }]
        }
        return []
      case "stream_event":
        return event.parent_tool_use_id === null ? this.streamEvent(event.event) : []
      case "assistant":
        return event.parent_tool_use_id === null ? this.assistant(event) : []
      case "user":
        return event.parent_tool_use_id === null ? this.user(event) : []
      case "result":
        return this.result(event)
      default:
        return []
    }
  }

  private streamEvent(event: Protocol.StreamEvent["event"]): ReadonlyArray<Part> {
    switch (event.type) {
      case "message_start": {
        this.message++
        const id = (event as { readonly message?: { readonly id?: unknown } }).message?.id
        if (typeof id === "string") this.streamed.add(id)
        return []
      }
      case "content_block_start": {
        if (this.text === "messages") return []
        const block = (event as { readonly content_block: { readonly type: string } }).content_block
        const index = (event as { readonly index: number }).index
        if (block.type === "text" && !this.structured) {
          this.open.set(index, "text")
          return [{ type: "text-start", id: this.blockId(index) }]
        }
        if (block.type === "thinking") {
          this.open.set(index, "reasoning")
          return [{ type: "reasoning-start", id: this.blockId(index) }]
        }
        return []
      }
      case "content_block_delta": {
        const { delta, index } = event as {
          readonly index: number
          readonly delta: { readonly type: string; readonly text?: unknown; readonly thinking?: unknown }
        }
        const kind = this.open.get(index)
        if (kind === "text" && delta.type === "text_delta" && Predicate.isString(delta.text)) {
          return [{ type: "text-delta", id: this.blockId(index), delta: delta.text }]
        }
        if (kind === "reasoning" && delta.type === "thinking_delta" && Predicate.isString(delta.thinking)) {
          return [{ type: "reasoning-delta", id: this.blockId(index), delta: delta.thinking }]
        }
        return []
      }
      case "content_block_stop": {
        const index = (event as { readonly index: number }).index
        const kind = this.open.get(index)
        this.open.delete(index)
        if (kind === "text") return [{ type: "text-end", id: this.blockId(index) }]
        if (kind === "reasoning") return [{ type: "reasoning-end", id: this.blockId(index) }]
        return []
      }
      default:
        return []
    }
  }

  private assistant(event: Protocol.AssistantMessage): ReadonlyArray<Part> {
    const parts: Array<Part> = []
    // Its text from this line when it did not come as deltas; never the CLI's own line for an API
    // error (`<synthetic>`, `is_api_error_message`), which the turn's failure reports.
    // A local command's output (`/cost`, `/status`) is `<synthetic>` too, and it is the answer.
    const textHere = !isApiErrorLine(event) && (this.text === "messages" || !this.streamed.has(event.message.id))
    if (textHere) this.message++
    event.message.content.forEach((block, index) => {
      if (block.type === "tool_use") {
        const use = block as Protocol.ToolUseBlock
        const tool = this.tool(use.name)
        if (tool === undefined) return
        const { name } = tool
        const toolkit = tool.read !== undefined
        const read = tool.read !== undefined ? tool.read(use.input) : { params: use.input }
        // Arguments the tool refused: the model read why (and may call again); a call `effect/ai`
        // would check against the parameters and fail whole is left out, with its result.
        this.calls.set(use.id, { name, toolkit, input: use.input, refused: read === undefined })
        if (read !== undefined) parts.push({ type: "tool-call", id: use.id, name, params: read.params, providerExecuted: true })
        return
      }
      if (!textHere) return
      const id = this.blockId(index)
      if (block.type === "text" && !this.structured) {
        const text = (block as Protocol.TextBlock).text
        parts.push({ type: "text-start", id }, { type: "text-delta", id, delta: text }, { type: "text-end", id })
      } else if (block.type === "thinking") {
        const thinking = (block as { readonly thinking?: unknown }).thinking
        if (typeof thinking !== "string") return
        parts.push({ type: "reasoning-start", id }, { type: "reasoning-delta", id, delta: thinking }, {
          type: "reasoning-end",
          id
        })
      }
    })
    return parts
  }

  private user(event: Protocol.UserMessage): ReadonlyArray<Part> {
    const content = event.message.content
    if (typeof content === "string") return []
    const parts: Array<Part> = []
    for (const block of content) {
      if (block.type !== "tool_result") continue
      const call = this.calls.get(block.tool_use_id)
      if (call === undefined) continue
      const { name } = call
      const recorded = call.toolkit ? this.results.take(block.tool_use_id, name, call.input, block.is_error === true) : undefined
      if (call.refused) continue
      parts.push(
        recorded !== undefined
          ? {
            type: "tool-result",
            id: block.tool_use_id,
            name,
            isFailure: recorded.isFailure,
            result: recorded.encodedResult,
            ...modelOutputOf(recorded),
            providerExecuted: true
          }
          : call.toolkit
          // No result of its handler (a hook or the permission handler denied the use, the CLI
          // refused it): a failure of the call the toolkit's failure schema reads, with the CLI's
          // words, never its raw text decoded as the tool's success.
          ? {
            type: "tool-result",
            id: block.tool_use_id,
            name,
            isFailure: true,
            result: { type: "execution-denied", reason: toolResultText(block.content) },
            providerExecuted: true
          }
          : {
            type: "tool-result",
            id: block.tool_use_id,
            name,
            isFailure: block.is_error === true,
            result: toolResultText(block.content),
            providerExecuted: true
          }
      )
    }
    return parts
  }

  private result(result: Claude.TurnResult): ReadonlyArray<Part> {
    const parts: Array<Part> = []
    if (this.structured && result.structured_output !== undefined) {
      const id = `${this.message}:structured`
      parts.push(
        { type: "text-start", id },
        { type: "text-delta", id, delta: JSON.stringify(result.structured_output) },
        { type: "text-end", id }
      )
    }
    const usage = result.usage
    const cacheRead = usage.cache_read_input_tokens ?? undefined
    const cacheWrite = usage.cache_creation_input_tokens ?? undefined
    parts.push({
      type: "finish",
      reason: finishReason(result),
      usage: {
        inputTokens: {
          uncached: usage.input_tokens,
          total: usage.input_tokens + (cacheRead ?? 0) + (cacheWrite ?? 0),
          ...(cacheRead !== undefined ? { cacheRead } : {}),
          ...(cacheWrite !== undefined ? { cacheWrite } : {})
        },
        outputTokens: { total: usage.output_tokens }
      },
      metadata: {
        [metadataKey]: {
          sessionId: result.session_id,
          costUsd: result.turn.costUsd,
          numTurns: result.num_turns,
          durationMs: result.duration_ms,
          subtype: result.subtype,
          ...(result.terminal_reason !== undefined ? { terminalReason: result.terminal_reason } : {}),
          ...(result.stop_reason !== undefined && result.stop_reason !== null ? { stopReason: result.stop_reason } : {}),
          // Why a turn the model did not end ended: the CLI's words (a blocking hook's reason).
          ...(notEndedByModel(result) && result.result !== undefined && result.result !== "" ? { result: result.result } : {})
        }
      }
    })
    return parts
  }
}

const encodeModelOutput = Schema.encodeUnknownResult(Schema.Array(Prompt.ToolModelOutputPart))

/** A toolkit call's model output (its tool's `toModelOutput`), encoded for its `tool-result` part. */
const modelOutputOf = (
  recorded: McpServers.ToolkitCallResult
): { readonly modelOutput?: ReadonlyArray<Prompt.TextPartEncoded | Prompt.FilePartEncoded> } => {
  if (recorded.modelOutput === undefined) return {}
  const encoded = encodeModelOutput(recorded.modelOutput)
  return Result.isSuccess(encoded) ? { modelOutput: encoded.success } : {}
}

const toolResultText = (content: Protocol.ToolResultBlock["content"]): string => {
  if (content === undefined) return ""
  if (typeof content === "string") return content
  return content.flatMap((block) => block.type === "text" && Predicate.isString(block.text) ? [block.text] : []).join("")
}

/**
 * A turn the model did not end: a hook stopped it after a tool (`hook_stopped`), or it never ran
 * (`num_turns: 0`: a UserPromptSubmit hook blocked the prompt); its result text says why.
 */
const notEndedByModel = (result: Claude.TurnResult): boolean =>
  result.num_turns === 0 || result.terminal_reason === "hook_stopped"

const finishReason = (result: Claude.TurnResult): Response.FinishReason => {
  if (result.is_error) return "error"
  if (notEndedByModel(result)) return "other"
  switch (result.subtype) {
    case "success":
      break
    case "error_max_turns":
      return "length"
    default:
      return "other"
  }
  switch (result.stop_reason) {
    case "max_tokens":
      return "length"
    case "refusal":
      return "content-filter"
    case "pause_turn":
      return "pause"
    case "tool_use":
      return "tool-calls"
    default:
      return "stop"
  }
}

/** The non-streaming parts of a streamed response: deltas joined into text and reasoning parts. */
const collapse = (parts: ReadonlyArray<Part>): Array<Response.PartEncoded> => {
  const out: Array<Response.PartEncoded> = []
  const texts = new Map<string, { type: "text" | "reasoning"; text: string }>()
  for (const part of parts) {
    switch (part.type) {
      case "text-start":
      case "reasoning-start": {
        const entry = { type: part.type === "text-start" ? "text" as const : "reasoning" as const, text: "" }
        texts.set(part.id, entry)
        out.push(entry as Response.PartEncoded)
        break
      }
      case "text-delta":
      case "reasoning-delta": {
        const entry = texts.get(part.id)
        if (entry !== undefined) entry.text += part.delta
        break
      }
      case "text-end":
      case "reasoning-end":
      case "tool-params-start":
      case "tool-params-delta":
      case "tool-params-end":
      case "error":
        break
      default:
        out.push(part)
    }
  }
  return out
}

// -----------------------------------------------------------------------------
// Errors
// -----------------------------------------------------------------------------

/** The API the CLI calls, for a `NetworkError` (its base URL is the CLI's own). */
const messagesPath = "/v1/messages"

const aiError = (method: string, reason: AiError.AiErrorReason): AiError.AiError =>
  AiError.make({ module: "ClaudeCodeLanguageModel", method, reason })

/**
 * The `AiError` for a `ClaudeError`: its reason chosen by what went wrong (an API error by its
 * status, an API the CLI could not reach, a refusal, a spent budget, a missing CLI or
 * credentials, a bad request, an interrupted turn), with the
 * `ClaudeError` as the reason's `cause` and its reason tag under `metadata["claude-code"]`.
 *
 * @since 0.2.0
 * @category errors
 */
export const fromClaudeError = (method: string, error: ClaudeError.ClaudeError): AiError.AiError => {
  const reason = error.reason
  const metadata = { [metadataKey]: { reason: reason._tag } }
  const description = reason.message
  let aiReason: AiError.AiErrorReason
  switch (reason._tag) {
    case "ApiError": {
      const status = (reason as { readonly status?: unknown }).status
      // No status: the CLI could not reach the API (refused, timed out), retryable as the
      // `ApiError` says; a refusal or a limit has a reason of its own.
      aiReason = status === null
        ? new AiError.NetworkError({ reason: "TransportError", method: "POST", url: messagesPath, description })
        : status === 429
        ? new AiError.RateLimitError({ metadata })
        : status === 401 || status === 403
        ? new AiError.AuthenticationError({ kind: status === 401 ? "InvalidKey" : "InsufficientPermissions", metadata })
        : Predicate.isNumber(status) && status >= 500
        ? new AiError.InternalProviderError({ description, metadata })
        : new AiError.InvalidRequestError({ description, metadata })
      break
    }
    case "NotAuthenticated":
      aiReason = new AiError.AuthenticationError({ kind: "MissingKey", metadata })
      break
    case "Refused":
      aiReason = new AiError.ContentPolicyError({ description, metadata })
      break
    case "InvalidInput":
    case "PromptTooLong":
    case "SessionNotFound":
      aiReason = new AiError.InvalidRequestError({ description, metadata })
      break
    case "StructuredOutputInvalid":
    case "StructuredOutputMissing": {
      // The value the Schema refused is the response's text; a missing one has none.
      aiReason = new AiError.StructuredOutputError({
        description,
        responseText: reason._tag === "StructuredOutputInvalid" ? stringify(reason.value) : "",
        metadata
      })
      break
    }
    case "LimitReached": {
      const limit = (reason as { readonly limit?: unknown }).limit
      // The program's budget spent: no retry helps until it is raised. The model breaking the
      // schema on every try: the structured output's failure.
      aiReason = limit === "error_max_budget_usd" || limit === "budget_exhausted"
        ? new AiError.QuotaExhaustedError({ metadata })
        : limit === "error_max_structured_output_retries" || limit === "structured_output_retry_exhausted"
        ? new AiError.StructuredOutputError({ description, responseText: "", metadata })
        : new AiError.UnknownError({ description, metadata })
      break
    }
    default:
      aiReason = new AiError.UnknownError({ description, metadata })
  }
  Object.defineProperty(aiReason, "cause", { value: error, enumerable: false, configurable: true, writable: true })
  return aiError(method, aiReason)
}
