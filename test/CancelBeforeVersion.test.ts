/**
 * A control request given up (timed out) before the session has told the CLI's version sends no
 * `control_cancel_request`: the version, once told, may be 2.1.0, which exits on one. Before, a
 * version not told yet counted as one that takes cancels (found by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { Transport } from "../src/Transport.ts"

/** A CLI 2.1.0 look-alike with a process id: its `initialize` answer names no version, `claude --version` answers after `versionDelay`. */
const cli210 = (versionDelay: Duration.Input) => {
  const seen: Array<string> = []
  const fake = FakeCli.layer((cli) =>
    Effect.gen(function*() {
      yield* FakeCli.answerInitialize(cli, { claude_code_version: undefined })
      while (true) {
        const exit = yield* Effect.exit(cli.next)
        if (Exit.isFailure(exit)) return 0
        const message = exit.value
        seen.push(message.type === "control_request" ? String((message.request as { readonly subtype?: unknown }).subtype) : String(message.type))
        // 2.1.0 never answers get_context_usage, and exits (1) on a control_cancel_request.
        if (message.type === "control_cancel_request") return 1
      }
    })
  )
  const layer = Layer.effect(
    Transport,
    Effect.gen(function*() {
      const inner = yield* Transport
      return Transport.of({
        open: (spec) =>
          spec.args[0] === "--version"
            ? Effect.succeed({
              pid: 4243,
              incoming: Stream.fromEffect(
                Effect.as(Effect.sleep(versionDelay), new TextEncoder().encode("2.1.0 (Claude Code)\n"))
              ),
              stderr: Stream.empty,
              send: () => Effect.void,
              endInput: Effect.void,
              exit: Effect.succeed({ code: 0, signal: null, stderrTail: "" })
            })
            : Effect.map(inner.open(spec), (connection) => ({ ...connection, pid: 4242 }))
      })
    })
  ).pipe(Layer.provide(fake))
  return { seen, layer }
}

describe("control_cancel_request and CLI 2.1.0", () => {
  it.live("after the version is told (2.1.0), a timed-out request sends no cancel (works)", () =>
    Effect.gen(function*() {
      const { seen, layer } = cli210("10 millis")
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open()
        assert.strictEqual(yield* session.cliVersion, "2.1.0")
        const exit = yield* Effect.exit(session.contextUsage({ timeout: "100 millis" }))
        assert.isTrue(Exit.isFailure(exit))
        yield* Effect.sleep("50 millis")
      })).pipe(Effect.provide(layer), Effect.provide(Logger.layer([])))
      assert.notInclude(seen, "control_cancel_request")
    }))

  it.live("a request timed out while `claude --version` still runs sends no cancel to a 2.1.0 CLI", () =>
    Effect.gen(function*() {
      const { seen, layer } = cli210("500 millis")
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open()
        // README: on 2.1.0 get_context_usage is never answered, "pass a short timeout".
        const exit = yield* Effect.exit(session.contextUsage({ timeout: "100 millis" }))
        assert.isTrue(Exit.isFailure(exit))
        assert.strictEqual(yield* session.cliVersion, "2.1.0")
        yield* Effect.sleep("50 millis")
      })).pipe(Effect.provide(layer), Effect.provide(Logger.layer([])))
      assert.notInclude(seen, "control_cancel_request", `the CLI got: ${seen.join(", ")}`)
    }))
})
