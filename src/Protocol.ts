/**
 * The `claude` CLI's stream-json protocol (CLI 2.1.332): every line both ways, as `effect/Schema`.
 *
 * - stdout (CLI → host): {@link Message}, decoded with {@link decodeMessage}.
 * - stdin (host → CLI): {@link StdinMessage}, built with {@link userTurn}, {@link controlRequest},
 *   {@link controlSuccess}, {@link controlError}, {@link controlCancel} and written with
 *   {@link encodeStdin}.
 * - control response bodies: {@link InitializeResponse}, {@link InterruptResponse}, … (see
 *   {@link responseBodies}), decoded with {@link makeDecoder}.
 *
 * Design invariants:
 * - Every wire schema is structural: its `Encoded` type is its `Type` and it has no
 *   transformations. Decoding is validation; the decoded value is the parsed object itself, so
 *   fields this module does not model are never lost.
 * - Unknown is not an error: a line of an unmodelled `type` (or `system` subtype) decodes to
 *   {@link UnknownMessage}; unknown content blocks, stream events, deltas and control subtypes
 *   decode to catch-all members that keep them as they are. A known type that does not match its
 *   schema IS an error, never an unknown. A catch-all's discriminant is typed
 *   {@link UnknownType} (a string no known literal matches), so `block.type === "text"`,
 *   `event.type === "content_block_delta"` and `delta.type === "text_delta"` narrow with no guard.
 * - Closed-looking string fields (`subtype` of `result`, `terminal_reason`, `status`, …) accept
 *   any string: the CLI adds values over time. Known values are listed in the docs and in
 *   `known*` constants.
 * - Required fields are those present on every recorded line and required by the Agent SDK's
 *   published types; every other field is an optional key.
 *
 * @since 0.1.0
 */
export * from "./protocol/codec.ts"
export * from "./protocol/content.ts"
export * from "./protocol/control.ts"
export * from "./protocol/hooks.ts"
export * from "./protocol/lines.ts"
export * from "./protocol/messages.ts"
export * from "./protocol/permissions.ts"
export * from "./protocol/stream.ts"
export * from "./protocol/system.ts"
export * from "./protocol/tools.ts"
export * from "./protocol/unknown.ts"
