/**
 * The session's one way to write a line to the CLI's stdin: user turns, control requests and
 * answers all go through {@link make}'s `write`.
 *
 * Invariants:
 * - A message JSON cannot hold (a BigInt, a cycle) fails its writer with `InvalidInput` and
 *   nothing is sent or recorded.
 * - A message is observed (the transcript records it) once it is encoded, before it is handed
 *   over, so that the transcript holds every line the CLI may have read.
 * - A line is handed over whole or not at all (`Connection.send`, run uninterruptibly).
 */
import * as Effect from "effect/Effect"
import * as ClaudeError from "../ClaudeError.ts"
import type * as Protocol from "../Protocol.ts"
import * as Lines from "../protocol/lines.ts"
import type { Connection } from "../Transport.ts"
import { describeError } from "./describeCause.ts"

/** Writes one message to the CLI's stdin. */
export type Write = (message: Protocol.StdinMessage) => Effect.Effect<void, ClaudeError.ClaudeError>

const notJson = (message: Protocol.StdinMessage, error: unknown) =>
  ClaudeError.make(
    new ClaudeError.InvalidInput({
      description: `A ${message.type} line for the CLI cannot be written as JSON, so it was not sent: ${
        describeError(error)
      }`
    })
  )

/**
 * The session's `write` to `connection`, each message given to `observe` (the transcript's record,
 * what the session keeps of the lines it wrote).
 */
export const make = (
  connection: Connection,
  observe: (message: Protocol.StdinMessage) => void
): Write =>
(message) =>
  Effect.suspend(() => {
    let line: string
    try {
      line = Lines.encodeStdin(message)
    } catch (error) {
      return Effect.fail(notJson(message, error))
    }
    observe(message)
    return Effect.uninterruptible(connection.send(line))
  })
