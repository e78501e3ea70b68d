/**
 * What a session takes from the protocol's schemas: the decoder of the CLI's lines and the
 * schemas of the answers to its control requests. Loaded on request (`import()`) as a session
 * opens, once its CLI is spawned (`Claude.open`), so that importing the library does not build
 * the protocol's schemas: they are made while the CLI starts, which takes far longer. What the
 * session writes needs none of them (`protocol/lines.ts`).
 */
export { decodeMessage, prepareDecoders } from "../../protocol/codec.ts"
// Named, not a namespace object (`export * as`): a bundler would add a helper to every chunk.
export * from "../../protocol/control.ts"
