/**
 * Telling the version of a CLI process (live tier: test/fixtures/fake-claude.mjs reporting any
 * version); the pure checks are in test/CliVersion.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Path from "node:path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as CliVersion from "../src/CliVersion.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import { Transport } from "../src/Transport.ts"
import { processLayer } from "./support/live.ts"
import { reasonOf, withWarnings } from "./support/outcomes.ts"

const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")

describe("CliVersion: telling the version of a process", () => {
    const spec = (env: Record<string, string>) => ({ executable: FAKE, env, closeGrace: Duration.seconds(2) })

    it.live("query runs `claude --version`; an unreadable answer or a missing executable is undefined", () =>
      Effect.gen(function*() {
        assert.strictEqual(yield* CliVersion.query(spec({ FAKE_CLAUDE_VERSION: "2.1.7" })), "2.1.7")
        assert.isUndefined(yield* CliVersion.query({ executable: "/nonexistent/claude", env: {}, closeGrace: Duration.seconds(1) }))
      }).pipe(Effect.provide(processLayer)))

    it.live("a fake claude 2.0.76 (no version in its initialize answer, like 2.1.200 and older): UnsupportedCliVersion before any user turn", () =>
      Effect.gen(function*() {
        const env = { FAKE_CLAUDE_VERSION: "2.0.76", FAKE_CLAUDE_INIT_VERSION: "0" }
        const transport = yield* Transport
        const connection = yield* transport.open({ ...spec(env), args: [] })
        const written: Array<string> = []
        const send = (line: string) => Effect.andThen(Effect.sync(() => written.push(line)), connection.send(line))
        yield* send(JSON.stringify({ type: "control_request", request_id: "req_1", request: { subtype: "initialize", hooks: {} } }))
        const answer = yield* connection.incoming.pipe(
          Stream.decodeText,
          Stream.splitLines,
          Stream.map((line) => JSON.parse(line) as { type?: string; response?: { response?: unknown } }),
          Stream.filter((message) => message.type === "control_response"),
          Stream.runHead,
          Effect.map(Option.getOrThrow)
        )
        const body = answer.response?.response
        assert.isUndefined(CliVersion.fromInitialize(body))
        const version = yield* CliVersion.resolve(body, spec(env), connection)
        assert.strictEqual(version, "2.0.76")
        const reason = reasonOf(yield* Effect.exit(CliVersion.check(version))) as ClaudeError.UnsupportedCliVersion
        assert.strictEqual(reason._tag, "UnsupportedCliVersion")
        assert.include(reason.message, "2.0.76")
        assert.include(reason.message, "2.1.0")
        assert.isFalse(written.some((line) => line.includes(`"type":"user"`)), "a user turn was written")
        // verify = resolve + check: the same failure; with "warn", the version and a warning.
        const verified = reasonOf(yield* Effect.exit(CliVersion.verify(body, spec(env), connection)))
        assert.strictEqual(verified._tag, "UnsupportedCliVersion")
        const { exit, warnings } = yield* withWarnings(CliVersion.verify(body, spec(env), connection, { onUnsupported: "warn" }))
        assert.deepStrictEqual(exit, Exit.succeed("2.0.76"))
        assert.strictEqual(warnings.length, 1)
        // A CLI that reports its version in the initialize answer is told without a second process;
        // an in-memory or replayed one (no pid) that does not is not asked.
        const nowhere = { executable: "/nonexistent", env: {}, closeGrace: Duration.seconds(1) }
        assert.strictEqual(yield* CliVersion.resolve({ claude_code_version: "2.1.332" }, nowhere, { pid: 1 }), "2.1.332")
        assert.isUndefined(yield* CliVersion.resolve({}, spec(env), { pid: undefined }))
      }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
