/**
 * A fake CLI for control-method tests: it answers `initialize`, then every control request with
 * an empty success (`mcp_set_servers` with empty lists), and records each request's body.
 */
import * as Effect from "effect/Effect"
import * as FakeCli from "../../src/testing/FakeCli.ts"

/** A CLI that answers every control request with an empty success; what it got goes to `received`. */
export const answering = (received: Array<Record<string, unknown>>) =>
  FakeCli.layer((cli) =>
    Effect.gen(function*() {
      yield* FakeCli.answerInitialize(cli)
      while (true) {
        const request = yield* cli.nextMatching((m) => m.type === "control_request")
        received.push(request.request as Record<string, unknown>)
        const subtype = (request.request as { readonly subtype?: unknown }).subtype
        yield* cli.emit(FakeCli.success(request, subtype === "mcp_set_servers" ? { added: [], removed: [], errors: {} } : {}))
      }
    })
  )
