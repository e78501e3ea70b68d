/**
 * `stallTimeout` watches a CLI that went silent; a CLI that waits for one of the program's own
 * handlers (a permission asked of a person, a slow in-process MCP tool) is not silent. The turn
 * failed with `Stalled` ("The claude CLI wrote nothing …") and was interrupted on the CLI while
 * the program's permission handler was still deciding; the time a handler runs now counts as
 * the CLI's activity, and the silence is counted from its answer.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Claude from "../src/Claude.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

describe("stallTimeout and the program's handlers", () => {
  it.live("a turn whose CLI waits for a permission handler longer than stallTimeout is not Stalled", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (_text, _index, cli, message) =>
          Effect.gen(function*() {
            const lines = FakeCli.textTurn({ sessionId: SESSION, text: "done", userMessageUuid: String(message.uuid) })
            yield* cli.emit(lines[0])
            // The CLI writes nothing while it waits for the program's decision.
            yield* FakeCli.askPermission(cli, "Bash", { command: "ls" }, { timeout: "10 seconds" })
            for (const line of lines.slice(1)) yield* cli.emit(line)
          })
      }))
      const exit = yield* Effect.gen(function*() {
        const session = yield* Claude.open({ stallTimeout: "1 second" })
        return yield* Effect.exit(session.run("go"))
      }).pipe(
        Effect.scoped,
        Effect.provide(layer),
        Effect.provide(Permissions.layer(() => Effect.as(Effect.sleep("2500 millis"), Permissions.allow())))
      )
      assert.isTrue(Exit.isSuccess(exit), Exit.isFailure(exit) ? String(exit.cause) : "")
      assert.strictEqual(Exit.isSuccess(exit) ? exit.value.result : undefined, "done")
    }))
})
