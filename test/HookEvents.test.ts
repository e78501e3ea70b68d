/**
 * The hook events issue 15 typed: every event of the TypeScript SDK's `HOOK_EVENTS` has an input
 * schema here (and its `hookSpecificOutput` where sdk.d.ts has one). The inputs below are written
 * after sdk.d.ts; the four CLI 2.1.332 fires offline are also decoded from its recording
 * (test/fixtures/messages/hook-inputs-2.1.332.ndjson, `npm run record:messages`), and
 * test/HookEventsLive.test.ts shows their effect.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as HookEvents from "../src/HookEvents.ts"
import * as Hooks from "../src/Hooks.ts"
import { sdkHookEvents } from "./support/sdkDeclarations.ts"

const base = { session_id: "s", transcript_path: "t.jsonl", cwd: "/w" }
const modelSwitch = {
  from_model: "claude-opus-5-5",
  to_model: "claude-sonnet-5-5",
  requested_model: "sonnet",
  source: "sdk",
  context_tokens: 102,
  prompt_cache_warm: true,
  cache_ttl: "5m",
  estimated_cache_write_usd: 0.0003,
  pricing: "catalog"
}
const task = { task_id: "1", task_subject: "Write tests", task_description: "All of them" }

/** One input per event added by issue 15, and a field it cannot do without. */
const inputs: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
  ["PreModelSwitch", modelSwitch, "to_model"],
  ["PostModelSwitch", modelSwitch, "from_model"],
  ["Setup", { trigger: "init" }, "trigger"],
  ["TeammateIdle", { teammate_name: "ada", team_name: "core" }, "team_name"],
  ["TaskCreated", task, "task_subject"],
  ["TaskCompleted", task, "task_id"],
  ["ConfigChange", { source: "project_settings", file_path: "/w/.claude/settings.json" }, "source"],
  ["WorktreeCreate", { name: "feature" }, "name"],
  ["WorktreeRemove", { worktree_path: "/w/.worktrees/feature" }, "worktree_path"],
  [
    "InstructionsLoaded",
    { file_path: "/w/CLAUDE.md", memory_type: "Project", load_reason: "session_start", globs: ["*.ts"] },
    "memory_type"
  ],
  ["CwdChanged", { old_cwd: "/w", new_cwd: "/w/sub" }, "new_cwd"],
  ["FileChanged", { file_path: "/w/a.ts", event: "change" }, "event"],
  ["DirectoryAdded", { directory: "/x", source: "slash_command" }, "directory"],
  ["MessageDisplay", { turn_id: "t", message_id: "m", index: 0, final: true, delta: "Hi." }, "delta"],
  [
    "PreSkillShellCommand",
    {
      tool_name: "Bash",
      tool_input: { command: "git status" },
      tool_use_id: "toolu_1",
      command_name: "status",
      invoked_by: "user"
    },
    "command_name"
  ]
]

const currentHooks = Effect.map(Effect.serviceOption(Hooks.Hooks), (o) => o._tag === "Some" ? o.value : Hooks.empty)
const bindLayer = <E>(layer: Layer.Layer<Hooks.Hooks, E>) => Effect.map(Effect.provide(currentHooks, layer), Hooks.bind)

const recorded = Fs.readFileSync(
  Path.join(import.meta.dirname, "fixtures", "messages", "hook-inputs-2.1.332.ndjson"),
  "utf8"
).split("\n").filter((line) => line.length > 0).map((line) => JSON.parse(line) as Record<string, unknown>)

describe("HookEvents", () => {
  it("the inputs the real CLI sent for the added events it fires offline decode with their schemas", () => {
    assert.deepStrictEqual(recorded.map((input) => input.hook_event_name), [
      "MessageDisplay",
      "PreModelSwitch",
      "PostModelSwitch",
      "ConfigChange"
    ])
    for (const input of recorded) {
      const event = String(input.hook_event_name)
      assert.isTrue(Schema.is(HookEvents.inputSchema(event))(input), event)
      assert.notStrictEqual(HookEvents.inputSchema(event), HookEvents.UnknownHookInput)
    }
  })

  it("every event of the SDK's HOOK_EVENTS has a schema, and no other", () => {
    const sdk = sdkHookEvents()
    assert.strictEqual(sdk.length, 34)
    assert.deepStrictEqual(Object.keys(HookEvents.events).sort(), [...sdk].sort())
    for (const event of sdk) assert.isTrue(HookEvents.isKnownEvent(event), event)
  })

  it("each added event's input decodes with its schema; without a required field it does not", () => {
    assert.strictEqual(inputs.length, 15)
    for (const [event, fields, required] of inputs) {
      const input: Record<string, unknown> = { ...base, hook_event_name: event, ...fields }
      const schema = HookEvents.inputSchema(event)
      assert.isTrue(Schema.is(schema)(input), event)
      const { [required]: _, ...missing } = input
      assert.isFalse(Schema.is(schema)(missing), `${event} without ${required}`)
      assert.isFalse(Schema.is(schema)({ ...input, hook_event_name: "Stop" }), `${event} named Stop`)
    }
  })

  it.effect("a handler of an added event gets its typed input; its answer is checked and tagged with the event", () =>
    Effect.gen(function*() {
      const got: Array<HookEvents.HookInput<"CwdChanged">> = []
      const bound = yield* bindLayer(Hooks.layer(
        Hooks.on("CwdChanged", (input) =>
          Effect.sync(() => {
            got.push(input)
            return { hookSpecificOutput: { watchPaths: [`${input.new_cwd}/package.json`] } }
          })),
        Hooks.on("WorktreeCreate", (input) =>
          Effect.succeed({ hookSpecificOutput: { worktreePath: `/w/.worktrees/${input.name}` } })),
        Hooks.on("PreSkillShellCommand", (input) =>
          Effect.succeed(
            input.tool_input.command.startsWith("git ")
              ? {}
              : { hookSpecificOutput: { permissionDecision: "deny" as const, permissionDecisionReason: "git only" } }
          ))
      ))
      const input = (event: string) => ({ ...base, hook_event_name: event, ...inputs.find(([e]) => e === event)![1] })
      assert.deepStrictEqual(yield* bound.dispatch("hook_0", input("CwdChanged"), undefined), {
        hookSpecificOutput: { hookEventName: "CwdChanged", watchPaths: ["/w/sub/package.json"] }
      })
      assert.strictEqual(got[0]!.old_cwd, "/w")
      assert.deepStrictEqual(yield* bound.dispatch("hook_1", input("WorktreeCreate"), undefined), {
        hookSpecificOutput: { hookEventName: "WorktreeCreate", worktreePath: "/w/.worktrees/feature" }
      })
      const shell = { ...input("PreSkillShellCommand"), tool_input: { command: "rm -rf /" } }
      assert.deepStrictEqual(yield* bound.dispatch("hook_2", shell, "toolu_1"), {
        hookSpecificOutput: {
          hookEventName: "PreSkillShellCommand",
          permissionDecision: "deny",
          permissionDecisionReason: "git only"
        }
      })
    }))

  it.effect("an answer that breaks the added event's output schema is refused with InvalidInput", () =>
    Effect.gen(function*() {
      const bound = yield* bindLayer(Hooks.layer(
        Hooks.on("WorktreeCreate", () =>
          // No worktreePath: the CLI could not use this answer.
          Effect.succeed({ hookSpecificOutput: {} } as HookEvents.HookOutput<"WorktreeCreate">))
      ))
      const input = { ...base, hook_event_name: "WorktreeCreate", name: "feature" }
      const error = yield* Effect.flip(bound.dispatch("hook_0", input, undefined))
      assert.strictEqual(error.reason._tag, "InvalidInput")
      assert.include(error.message, "WorktreeCreate")
      assert.include(error.message, "worktreePath")
    }))

  it.effect("an input of an added event that breaks its schema is InvalidInput, and the handler is not called", () =>
    Effect.gen(function*() {
      let called = false
      const bound = yield* bindLayer(Hooks.layer(
        Hooks.on("FileChanged", () => Effect.sync(() => (called = true, {})))
      ))
      const error = yield* Effect.flip(
        bound.dispatch("hook_0", { ...base, hook_event_name: "FileChanged", file_path: 3, event: "change" }, undefined)
      )
      assert.strictEqual(error.reason._tag, "InvalidInput")
      assert.include(error.message, "file_path")
      assert.isFalse(called)
    }))
})
