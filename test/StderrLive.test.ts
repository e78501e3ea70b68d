/**
 * The process transport's stderr (live tier: test/fixtures/fake-claude.mjs); the line buffer,
 * the feed and FakeCli's stderr are in test/Stderr.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Path from "node:path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Connection, Transport } from "../src/Transport.ts"
import { processLayer } from "./support/live.ts"
import { ended, listen, nextLine } from "./support/stderrLines.ts"

const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")

describe("Connection.stderr", () => {
  it.live("the process transport: lines arrive while the CLI runs, one written in two pieces comes whole; the tail stays in the exit status", () =>
    Effect.gen(function*() {
      const transport = yield* Transport
      const connection = yield* transport.open({
        executable: FAKE,
        args: [],
        env: { FAKE_CLAUDE_MODE: "stderr-chatter", FAKE_CLAUDE_ECHO: "1" },
        closeGrace: Duration.seconds(2)
      })
      const lines = yield* listen(connection)
      // Written at start, possibly before the stream ran: replayed.
      assert.strictEqual(yield* nextLine(lines), `fake-claude: started, pid ${connection.pid}`)
      yield* connection.send(JSON.stringify({ type: "user", message: { role: "user", content: "hello" } }))
      assert.strictEqual(yield* nextLine(lines), "fake-claude: turn 1: hello")
      assert.isTrue(Option.isNone(yield* connection.exit.pipe(Effect.timeoutOption("10 millis"))), "the CLI had exited")
      yield* connection.send(JSON.stringify({ type: "user", message: { role: "user", content: "again" } }))
      assert.strictEqual(yield* nextLine(lines), "fake-claude: turn 2: again")
      assert.isTrue(Option.isNone(yield* connection.exit.pipe(Effect.timeoutOption("10 millis"))), "the CLI had exited")

      yield* connection.endInput
      const status = yield* connection.exit
      assert.strictEqual(status.code, 0)
      assert.include(status.stderrTail, "fake-claude: turn 1: hello\nfake-claude: turn 2: again\n")
      // The stream ends with stderr.
      assert.isTrue(yield* ended(lines))
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

})
