/**
 * The lines the host writes to the CLI: user turns, control requests and answers, each a plain
 * object built here and written as one JSON line. No schema is built here (only their types are
 * read).
 *
 * @since 0.2.0
 */
import { isRecord } from "../internal/json.ts"
import type { ContentBlock, ImageBlock, TextBlock } from "./content.ts"
import type { ControlCancelRequest, ControlResponse, OutgoingControlRequest, OutgoingRequestBody } from "./control.ts"
import type { StdinMessage, StdinUserMessage, UnknownMessage } from "./messages.ts"

/**
 * Writes a stdin message as one JSON line (no trailing newline). An {@link UnknownMessage} is
 * written as its `raw` object.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeStdin = (message: StdinMessage | UnknownMessage): string =>
  JSON.stringify(message.type === "unknown" ? message.raw : message)

/**
 * An image for {@link userTurn}: base64 `data` of the given media type.
 *
 * @since 0.1.0
 * @category constructors
 */
export interface UserTurnImage {
  /** The image's media type. */
  readonly mediaType: "image/png" | "image/jpeg" | "image/gif" | "image/webp"
  /** The image bytes, base64-encoded. */
  readonly data: string
}

/**
 * The input of {@link userTurn}.
 *
 * @since 0.1.0
 * @category constructors
 */
export interface UserTurnInput {
  /** The text of the turn. */
  readonly text: string
  /** Sent before the text, in order. */
  readonly images?: ReadonlyArray<UserTurnImage> | undefined
  /** Host-chosen id: turns on `command_lifecycle` lines and is the id for `rewind_files`. */
  readonly uuid?: string | undefined
  /**
   * `client_composed: true`: the CLI takes the text as written, with no `@path` mention read
   * into the prompt and no slash command run, for text the program did not have its user type
   * (a model's output, a web page, a chat message of someone else). CLI 2.1.248 and later; an
   * older one ignores it, so a session refuses such a turn there, and on a CLI process whose
   * version could not be told (`InvalidInput`). The CLI then also sends the turn without its
   * per-turn context (nested `CLAUDE.md`, skill listings), which arrives after the turn's first
   * tool call.
   */
  readonly verbatim?: boolean | undefined
}

/**
 * A user turn. Without images `content` is the text itself; with images it is one base64 image
 * block per image, in order, then the text block. `parent_tool_use_id: null` and
 * `session_id: ""` are always written (the CLI ignores both).
 *
 * @since 0.1.0
 * @category constructors
 */
export const userTurn = (options: UserTurnInput): StdinUserMessage => {
  const images = options.images ?? []
  const content: string | ReadonlyArray<ContentBlock> = images.length === 0
    ? options.text
    : [
      ...images.map((image): ImageBlock => ({
        type: "image",
        source: { type: "base64", media_type: image.mediaType, data: image.data }
      })),
      { type: "text", text: options.text } satisfies TextBlock
    ]
  const message: StdinUserMessage = {
    type: "user",
    message: { role: "user", content },
    parent_tool_use_id: null,
    session_id: "",
    ...(options.uuid === undefined ? {} : { uuid: options.uuid }),
    ...(options.verbatim === true ? { client_composed: true } : {})
  }
  return message
}

/**
 * A host → CLI `control_request`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const controlRequest = (requestId: string, request: OutgoingRequestBody): OutgoingControlRequest => ({
  type: "control_request",
  request_id: requestId,
  request
})

/**
 * A success `control_response` to the CLI's request `requestId`, with its body (`{}` for a bare
 * acknowledgement).
 *
 * @since 0.1.0
 * @category constructors
 */
export const controlSuccess = (
  requestId: string,
  response: { readonly [key: string]: unknown }
): ControlResponse => ({
  type: "control_response",
  response: { subtype: "success", request_id: requestId, response }
})

/**
 * An error `control_response` to the CLI's request `requestId`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const controlError = (requestId: string, error: string, errorCode?: string): ControlResponse => ({
  type: "control_response",
  response: errorCode === undefined
    ? { subtype: "error", request_id: requestId, error }
    : { subtype: "error", request_id: requestId, error, error_code: errorCode }
})

/**
 * The answer to a `control_request` from the CLI that did not decode (`decodeMessage` failed with
 * `failure`), so that the CLI never waits for an answer that will not come: an error
 * `control_response` naming the request's `request_id` and what broke. A `can_use_tool` answered
 * so is refused by the CLI (fail closed). `undefined` when `json` is not a `control_request` with
 * a string `request_id` (there is nobody to answer). A request of an unknown subtype decodes (as
 * `OtherIncomingRequest`) and is not this function's: the CLI's own answer to one is an error
 * with `error_code: "unsupported_request"`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const undecodableRequestAnswer = (json: unknown, failure: string): ControlResponse | undefined => {
  if (!isRecord(json) || json.type !== "control_request") return undefined
  const requestId = json.request_id
  if (typeof requestId !== "string" || requestId.length === 0) return undefined
  const request = json.request
  const subtype = isRecord(request) && typeof request.subtype === "string" ? request.subtype : "control"
  return controlError(requestId, `The host could not decode this ${subtype} request: ${failure}`)
}

/**
 * A `control_cancel_request` withdrawing the request `requestId`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const controlCancel = (requestId: string): ControlCancelRequest => ({
  type: "control_cancel_request",
  request_id: requestId
})
