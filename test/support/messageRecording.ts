/**
 * The real CLI's lines of the message types issue 15 typed, as CLI 2.1.332 writes them offline
 * (against the fake model): `system/hook_started`, `hook_progress` and `hook_response` (a settings
 * hook that writes, waits and answers, with `includeHookEvents`), `system/session_state_changed`
 * (with `CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1`) and `conversation_reset` (after `/clear`).
 * `scripts/record-messages.ts` writes them to `test/fixtures/messages/cli-2.1.332.ndjson`;
 * `test/MessageTypesLive.test.ts` checks a fresh run against it.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Claude from "../../src/Claude.ts"
import type { Transport } from "../../src/Transport.ts"
import * as FakeModel from "../../src/testing/FakeModel.ts"
import * as Offline from "../../src/testing/Offline.ts"
import { kindOf, recordedKinds } from "./messageKinds.ts"
import { cliPath } from "./realCli.ts"

/**
 * Runs the scenario and returns, in order, every line the CLI wrote (the recorder's `recv`
 * lines) and the first line of each recorded kind.
 */
export const recordMessages: Effect.Effect<
  { readonly all: ReadonlyArray<unknown>; readonly samples: ReadonlyArray<unknown> },
  unknown,
  Transport | Scope.Scope
> = Effect.gen(function*() {
  const all: Array<unknown> = []
  const transcript: Claude.Recorder = {
    record: (direction, message) => {
      if (direction === "recv") all.push(message)
    }
  }
  // A hook that writes to both streams, then waits long enough for a progress line.
  const hook = { type: "command", command: "cat > /dev/null; echo hook-out; echo hook-err >&2; sleep 2; echo '{}'" }
  const offline = yield* Offline.open(
    [FakeModel.toolUse("Bash", { command: "echo hi", description: "Say hi" }), FakeModel.text("Done.")],
    {
      executable: cliPath,
      permissionMode: "bypassPermissions",
      settings: { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [hook] }] } },
      includeHookEvents: true,
      transcript,
      env: { IS_SANDBOX: "1", CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS: "1" }
    }
  )
  yield* offline.session.run("Run a command")
  yield* offline.session.run("/clear")
  const samples = recordedKinds.flatMap((kind) => {
    const line = all.find((l) => kindOf(l) === kind)
    return line === undefined ? [] : [line]
  })
  return { all, samples }
})
