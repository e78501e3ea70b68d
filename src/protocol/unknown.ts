/**
 * The discriminant of the catch-all member of an open union: the `type` of a content block, stream
 * event or delta this library does not model (and the `subtype` of an unmodelled control request,
 * the `type` of an unmodelled permission update).
 *
 * @since 0.2.0
 */

/**
 * The phantom brand inside {@link UnknownType}. No value has this property: it exists only in
 * types.
 *
 * @since 0.2.0
 * @category unknown members
 */
export interface UnknownTypeBrand {
  /** The brand: a property no string has, so no string literal is an {@link UnknownType}. */
  readonly "~effect-claude-code/UnknownType": true
}

/**
 * A string that is none of its union's known discriminants: the `type` of an
 * `UnknownContentBlock`, `UnknownApiStreamEvent`, `UnknownDelta`, `UnknownImageSource`,
 * `OtherPermissionUpdate`, and the `subtype` of `OtherIncomingRequest` and `OtherOutgoingRequest`.
 *
 * **Why a branded type and not `string`.** An open union ends with a catch-all member that keeps
 * what a later CLI sends (a `document` block, a `citations_delta`, an `error` stream event). Were
 * its discriminant `string`, TypeScript could never rule it out: `block.type === "text"` would
 * leave `block` as `TextBlock | UnknownContentBlock` and `block.text` as `unknown`. This type is
 * a string pattern whose only placeholder is a branded string, which TypeScript treats as a
 * string (assignable to `string`, comparable with any `string`, usable as a key, every string
 * method) that no string literal matches. So:
 *
 * - `block.type === "text"` narrows `block` to `TextBlock`, and a `switch` on `type` reaches the
 *   catch-all in its `default` only;
 * - `const t: string = unknownBlock.type` compiles (no conversion needed);
 * - comparing it with a known literal (`unknownBlock.type === "text"`) is a compile error, which
 *   is the truth: the decoders never put a known type there (`Protocol.decodeMessage` rejects a
 *   known type whose fields do not match rather than keeping it as unknown).
 *
 * **At runtime** it is the plain string the CLI sent: the brand has no runtime existence and
 * decoding does not change the line. To build a catch-all member yourself (a test, a fake CLI),
 * type its discriminant with {@link unknownType}.
 *
 * @since 0.2.0
 * @category unknown members
 */
export type UnknownType = `${string & UnknownTypeBrand}`

/**
 * Types `type` as the discriminant of a catch-all member, to build one by hand:
 * `{ type: Protocol.unknownType("document"), source: {} }` is a `Protocol.ContentBlock`.
 * It returns `type` unchanged and checks nothing: a known type here (`"text"` as an unknown
 * block) makes a value that `Protocol.decodeMessage` would reject, as it rejects such a line.
 *
 * @since 0.2.0
 * @category unknown members
 */
export const unknownType = (type: string): UnknownType => type as UnknownType
