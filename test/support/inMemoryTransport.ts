/**
 * A `Transport` with no process, for measuring the session engine alone (`bench/turns.micro.ts`,
 * `test/fixtures/turn-heap.ts`): each user line the library writes is answered with the bytes
 * `answer` gives for it, in one chunk on the next tick, as a pipe delivers a CLI's write; each
 * control request gets an empty success. The chunks reach the session as the process transport's
 * do (`internal/processTransport.ts`): through a `Mailbox`, woken at once. Not an Effect `Queue`,
 * whose waiting reader joins and leaves the queue's set of takers on every chunk: V8 then replaces
 * the set's table each time, in the old generation (about 120 bytes a turn), and the heap test
 * would measure the transport as well as the session.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { Mailbox } from "../../src/internal/mailbox.ts"
import type { Transport as TransportTag } from "../../src/Transport.ts"

/** A user line the library wrote, as far as the answer needs it. */
export interface UserLine {
  readonly uuid?: string
}

/** `Transport` is given: the source's or a compiled build's (`BENCH_DIST`), whose tag is another. */
export const layer = (
  Transport: typeof TransportTag,
  answer: (line: UserLine) => Uint8Array
): Layer.Layer<TransportTag> => {
  const encoder = new TextEncoder()
  return Layer.succeed(Transport, Transport.of({
    open: () =>
      Effect.gen(function*() {
        const out = yield* Effect.sync(() => new Mailbox<Uint8Array, never>())
        const reply = (bytes: Uint8Array) =>
          setImmediate(() => {
            out.offer(bytes)
            out.wake()
          })
        return {
          pid: undefined,
          incoming: out.stream,
          stderr: Stream.empty,
          send: (line: string) =>
            Effect.sync(() => {
              const message = JSON.parse(line) as { type: string; request_id?: string; uuid?: string }
              if (message.type === "user") reply(answer(message))
              else if (message.type === "control_request") {
                reply(encoder.encode(JSON.stringify({ type: "control_response", response: { subtype: "success", request_id: message.request_id, response: {} } }) + "\n"))
              }
            }),
          endInput: Effect.sync(() => {
            out.end()
            out.wake()
          }),
          exit: Effect.succeed({ code: 0, signal: null, stderrTail: "" })
        }
      })
  }))
}
