/**
 * With `includeHookEvents`, the CLI writes `system/hook_started` / `hook_progress` /
 * `hook_response` lines around each settings hook it runs. A `UserPromptSubmit` hook runs before
 * the turn's `system/init`: its lines must reach that turn's stream (`session.turn`), also on a
 * CLI that echoes the message's uuid on `system/init` but writes no `command_lifecycle` line
 * (the real CLI's order, with `command_lifecycle`, is test/HookLinesRoutingLive.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as Events from "../src/Events.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

const hookLine = (subtype: "hook_started" | "hook_response", event: string, id: string) => ({
  type: "system",
  subtype,
  hook_id: id,
  hook_name: event,
  hook_event: event,
  ...(subtype === "hook_response"
    ? { output: "{}\n", stdout: "{}\n", stderr: "", exit_code: 0, outcome: "success" }
    : {}),
  uuid: `${id}-${subtype}`,
  session_id: SESSION
})

/** A CLI that runs a UserPromptSubmit hook before each turn's init and a Stop hook before its result. */
const cli = (lifecycle: boolean) =>
  FakeCli.layer(FakeCli.conversation({
    sessionId: SESSION,
    onUser: (text, index, cli, message) =>
      Effect.gen(function*() {
        const uuid = message.uuid as string
        if (lifecycle) {
          yield* cli.emit({ type: "command_lifecycle", command_uuid: uuid, state: "queued", uuid: `${uuid}-q`, session_id: SESSION })
          yield* cli.emit({ type: "command_lifecycle", command_uuid: uuid, state: "started", uuid: `${uuid}-s`, session_id: SESSION })
        }
        yield* cli.emit(hookLine("hook_started", "UserPromptSubmit", `ups-${index}`))
        yield* cli.emit(hookLine("hook_response", "UserPromptSubmit", `ups-${index}`))
        const lines = FakeCli.textTurn({ sessionId: SESSION, text: `echo: ${text}`, totalCostUsd: 0.001 * (index + 1), userMessageUuid: uuid })
        yield* Effect.forEach(lines.slice(0, -1), cli.emit, { discard: true })
        yield* cli.emit(hookLine("hook_started", "Stop", `stop-${index}`))
        yield* cli.emit(hookLine("hook_response", "Stop", `stop-${index}`))
        yield* cli.emit(lines.at(-1))
        if (lifecycle) {
          yield* cli.emit({ type: "command_lifecycle", command_uuid: uuid, state: "completed", uuid: `${uuid}-c`, session_id: SESSION })
        }
      })
  }))

const hookIds = (events: ReadonlyArray<Events.Event>) =>
  events.flatMap((e) => e.type === "system" && (e.subtype === "hook_started" || e.subtype === "hook_response")
    ? [`${e.hook_id}/${e.subtype}`]
    : [])

const expected = (i: number) => [
  `ups-${i}/hook_started`,
  `ups-${i}/hook_response`,
  `stop-${i}/hook_started`,
  `stop-${i}/hook_response`
]

describe("hook lines reach their turn", () => {
  for (const lifecycle of [false, true]) {
    it.effect(`${lifecycle ? "with" : "without"} command_lifecycle: every turn's stream has its hooks' lines, typed`, () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        for (const i of [0, 1, 2]) {
          const events = Array.from(yield* Stream.runCollect(session.turn(`turn ${i}`)))
          assert.deepStrictEqual(hookIds(events), expected(i), `turn ${i}`)
          assert.strictEqual(events.at(-1)?.type, "result")
        }
      }).pipe(Effect.provide(cli(lifecycle))))
  }
})
