/**
 * A FakeCli for the tests of verbatim turns: it answers each user turn "ok" and keeps the
 * `client_composed` of each user line the library wrote, in order.
 */
import * as Effect from "effect/Effect"
import * as FakeCli from "../../src/testing/FakeCli.ts"

const sessionId = "11111111-1111-4111-8111-111111111111"

export const clientComposedCli = () => {
  const seen: Array<unknown> = []
  const transport = FakeCli.layer(FakeCli.conversation({
    sessionId,
    onUser: (_text, _index, cli, message) =>
      Effect.gen(function*() {
        seen.push((message as { readonly client_composed?: unknown }).client_composed)
        for (const line of FakeCli.textTurn({ sessionId, text: "ok" })) yield* cli.emit(line)
      })
  }))
  return { seen, transport }
}
