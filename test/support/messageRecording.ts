/**
 * The real CLI's lines of the message types issue 15 typed, as CLI 2.1.332 writes them offline
 * (against the fake model): `system/hook_started`, `hook_progress` and `hook_response` (a settings
 * hook that writes, waits and answers, with `includeHookEvents`), `system/session_state_changed`
 * (with `CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1`) and `conversation_reset` (after `/clear`).
 * `scripts/record-messages.ts` writes them to `test/fixtures/messages/cli-2.1.332.ndjson`;
 * `test/MessageTypesLive.test.ts` checks a fresh run against it. Also the inputs of the hook
 * events issue 15 typed that the CLI fires offline (`hook-inputs-2.1.332.ndjson`).
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Claude from "../../src/Claude.ts"
import * as Hooks from "../../src/Hooks.ts"
import type { Transport } from "../../src/Transport.ts"
import * as FakeModel from "../../src/testing/FakeModel.ts"
import * as Offline from "../../src/testing/Offline.ts"
import { kindOf, recordedKinds } from "./messageKinds.ts"
import { cliPath } from "./realCli.ts"
import { makeTempDir } from "./tempDir.ts"

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

/** The hook events added by issue 15 that CLI 2.1.332 fires offline. */
export const recordedHookEvents: ReadonlyArray<string> = ["MessageDisplay", "PreModelSwitch", "PostModelSwitch", "ConfigChange"]

/**
 * Runs a session whose `Hooks` answer {@link recordedHookEvents} with `{}`: a turn (MessageDisplay),
 * `setModel` (PreModelSwitch, PostModelSwitch), a project settings file written mid-session
 * (ConfigChange), another turn. Returns the first input of each event, as the CLI sent it in
 * `hook_callback`, with the session's directories written `<home>` and `<cwd>`.
 */
export const recordHookInputs: Effect.Effect<ReadonlyArray<Record<string, unknown>>, unknown, Transport | Scope.Scope> =
  Effect.gen(function*() {
    const inputs: Array<Record<string, unknown>> = []
    const hooks = Hooks.layer(
      ...recordedHookEvents.map((event) =>
        Hooks.on(event, (input) => Effect.sync(() => (inputs.push(input as Record<string, unknown>), {})))
      )
    )
    const cwd = yield* makeTempDir("record-hooks-")
    const settings = Path.join(cwd, ".claude", "settings.json")
    Fs.mkdirSync(Path.dirname(settings))
    Fs.writeFileSync(settings, "{}\n")
    const offline = yield* Offline.open([FakeModel.text("Shown text."), FakeModel.text("Again.")], {
      executable: cliPath,
      cwd,
      settingSources: ["project"]
    }).pipe(Effect.provide(hooks))
    yield* offline.session.run("first")
    yield* offline.session.setModel("sonnet")
    Fs.writeFileSync(settings, JSON.stringify({ env: { RECORD_HOOKS: "1" } }) + "\n")
    for (let i = 0; i < 20 && !inputs.some((input) => input.hook_event_name === "ConfigChange"); i++) {
      yield* Effect.sleep("250 millis")
    }
    yield* offline.session.run("second")
    const real = (dir: string) => Fs.realpathSync(dir)
    const normalize = (text: string) =>
      text.split(real(offline.home)).join("<home>").split(offline.home).join("<home>")
        .split(real(cwd)).join("<cwd>").split(cwd).join("<cwd>")
        .split(real(cwd).replace(/[^A-Za-z0-9]/g, "-")).join("<cwd-key>")
    return recordedHookEvents.flatMap((event) => {
      const input = inputs.find((i) => i.hook_event_name === event)
      return input === undefined ? [] : [JSON.parse(normalize(JSON.stringify(input))) as Record<string, unknown>]
    })
  })
