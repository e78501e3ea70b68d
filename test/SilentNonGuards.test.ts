/**
 * Guards the program believes in place that CLI 2.1.332 treats as no guard (found by a reviewing
 * helper; on the real CLI `touch marker` ran with each, `test/SilentNonGuardsLive.test.ts`):
 * - a matcher written as a permission rule (`Bash(touch:*)`), which the CLI compiles as a regular
 *   expression that matches no tool, or a tool's name in another case (`bash`): refused at
 *   layer build, naming what to write;
 * - an event named in another case (`pretooluse`), which the CLI never sends: refused;
 * - an answer with `async: true` and a decision: the CLI reads an async answer as no decision
 *   and ignores the rest (a deny, silently): an invalid answer, so a guard refuses.
 * - `Hooks.stop` from a `PreToolUse` guard does not keep the tool from running on the CLI: its
 *   doc says so, and points to `deny`.
 * A second review found the first checks refusing regular expressions that do match tools
 * (`Bas(h)`, `Web(Fetch|Search)`, which the CLI reads as such) and missing the same mistakes
 * inside a larger matcher (`Write|Bash(touch:*)`, `^bash$`): each alternative of a regular
 * expression is checked now, against the tool names it could mean. A third review found that
 * check refusing MCP regular expressions with `(?:…)` and `(?=…)` groups, and missing a
 * permission rule in a comma list (`Write, Bash(touch:*)`: a comma separates names only in a
 * matcher of plain names) or inside a group (`(Write|Bash(touch:*))`, `^(bash|write)$`): groups
 * are looked into now, with their anchors. A fourth found it refusing MCP expressions with `\w*`
 * or `[0-9]*` in a group, and missing escaped forms (`Bash\(touch`, `Write\,Edit`, `[(]`): an
 * alternative that needs a character no tool name has (tool names are letters, digits, `_` and
 * `-`) is refused, and a rule's argument is told by `:`, spaces, `/`, `~`, `=` or `**`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Hooks from "../src/Hooks.ts"
import { preToolUseRmRf as input } from "./support/hookInputs.ts"

const deny = () => Effect.succeed(Hooks.deny("no"))

const messageOf = (exit: Exit.Exit<unknown, unknown>): string => {
  const reason = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
  return reason?._tag === "Fail" ? String((reason.error as { readonly message?: unknown }).message) : ""
}

const built = (hook: Hooks.Hook<never>) => Effect.exit(Effect.scoped(Layer.build(Hooks.layer(hook))))

const answerOf = (hook: Hooks.Hook<never>) =>
  Effect.gen(function*() {
    const service = yield* Effect.provide(Effect.service(Hooks.Hooks), Hooks.layer(hook))
    return yield* Hooks.bind(service).dispatch("hook_0", input, "toolu_1")
  }).pipe(Effect.provide(Logger.layer([])))

describe("guards the CLI would not apply", () => {
  it.effect("a matcher in permission-rule syntax is refused, naming the tool to match", () =>
    Effect.gen(function*() {
      for (const matcher of ["Bash(touch:*)", "Bash(rm -rf:*)", "Read(./secrets/**)", "mcp__byre__echo(text:*)", "Bash(x)"]) {
        const exit = yield* built(Hooks.on("PreToolUse", { matcher }, deny))
        assert.isTrue(Exit.isFailure(exit), matcher)
        assert.include(messageOf(exit), "permission rule", matcher)
      }
    }))

  it.effect("a built-in tool's name in another case is refused, naming the tool", () =>
    Effect.gen(function*() {
      for (const [matcher, tool] of [["bash", "Bash"], ["Bash|write", "Write"], ["WEBFETCH", "WebFetch"]] as const) {
        const exit = yield* built(Hooks.on("PreToolUse", { matcher }, deny))
        assert.isTrue(Exit.isFailure(exit), matcher)
        assert.include(messageOf(exit), `"${tool}"`, matcher)
      }
    }))

  it.effect("a permission rule or a tool's name in another case inside a larger matcher is refused too", () =>
    Effect.gen(function*() {
      for (
        const matcher of [
          "Write|Bash(touch:*)",
          "Bash(rm:*)|Edit",
          "^bash$",
          "^bash",
          "Read|^write$",
          "mcp__byre__echo(x:*)|Bash",
          "Write,Bash(touch:*)",
          "Write, Bash(touch:*)",
          "(Write|Bash(touch:*))",
          "^(bash|write)$",
          "^(?:Bash|write)$",
          "Bash\\(touch:\\*\\)",
          "Bash\\(touch",
          "Write\\,Edit",
          "Bash[(]touch:.*[)]",
          "Bash:.*"
        ]
      ) {
        const exit = yield* built(Hooks.on("PreToolUse", { matcher }, deny))
        assert.isTrue(Exit.isFailure(exit), matcher)
      }
    }))

  it.effect("a matcher the CLI cannot compile as a regular expression is refused: it matches nothing", () =>
    Effect.gen(function*() {
      const exit = yield* built(Hooks.on("PreToolUse", { matcher: "Bash(" }, deny))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(messageOf(exit), "regular expression")
    }))

  it.effect("regular expressions and names that are tools still build", () =>
    Effect.gen(function*() {
      for (
        const matcher of [
          "Bash",
          "(Bash|Write)",
          "Bash(Output)?",
          "^Bash$",
          "mcp__byre__.*",
          "my_tool",
          "Edit|Write",
          "Bas(h)",
          "Web(Fetch|Search)",
          "Notebook(Edit|Read)",
          "mcp__srv__(read|write)",
          "Task(Stop|Output)",
          "bash.*",
          "read|mcp__.*",
          "mcp__github__(?:create_issue|update_issue)",
          "mcp__fs__(?=write)",
          "mcp__fs__(?:write_file)",
          "mcp__fs__(?<n>read|write)",
          "mcp__fs__(?!read)",
          "mcp__gh__(create|update)_(issue|pull_request)",
          "^(Bash|Write)$",
          "Web(?:Fetch)",
          "mcp__x__a{1,3}",
          "mcp__srv__(get\\w*)",
          "mcp__srv__(a|b[0-9]*)",
          "mcp__srv__([a-z]*_file)",
          "mcp__srv__(read|write)_(file|dir\\d*)",
          "Bash:?",
          "Bash[:_]?.*"
        ]
      ) {
        assert.isTrue(Exit.isSuccess(yield* built(Hooks.on("PreToolUse", { matcher }, deny))), matcher)
      }
    }))

  it.effect("an event named in another case is refused, naming the event", () =>
    Effect.gen(function*() {
      const exit = yield* built(Hooks.on("pretooluse", deny))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(messageOf(exit), `"PreToolUse"`)
      // An event the library does not know is left to the CLI (a newer CLI's event).
      assert.isTrue(Exit.isSuccess(yield* built(Hooks.on("SomeFutureEvent", () => Effect.succeed({})))))
    }))

  it.effect("a guard's deny or block with async: true is refused: the CLI would ignore it", () =>
    Effect.gen(function*() {
      for (const answer of [{ ...Hooks.deny("no rm"), async: true as const }, { ...Hooks.block("no"), ...Hooks.async() }]) {
        const sent = yield* answerOf(Hooks.on("PreToolUse", () => Effect.succeed(answer)))
        assert.notStrictEqual(sent.async, true, JSON.stringify(sent))
        const specific = sent.hookSpecificOutput as { readonly permissionDecision?: unknown } | undefined
        assert.isTrue(specific?.permissionDecision === "deny" || sent.decision === "block", JSON.stringify(sent))
      }
      // Async alone is the SDKs' "no decision now", and with a message: sent as it is.
      const alone = yield* answerOf(Hooks.on("PreToolUse", () => Effect.succeed(Hooks.async())))
      assert.strictEqual(alone.async, true)
      const message = yield* answerOf(Hooks.on("PreToolUse", () => Effect.succeed({ ...Hooks.async(10), systemMessage: "s" })))
      assert.deepInclude(message, { async: true, systemMessage: "s" })
    }))

  // Other events' matchers are matched by the CLI against other strings (a subagent's type
  // `plugin:agent`, a command's name, a file's name): the checks of tool names are not theirs
  // (found by a fifth review: these were refused).
  it.effect("the matchers of events that are not about a tool are left to the CLI", () =>
    Effect.gen(function*() {
      for (
        const [event, matcher] of [
          ["SubagentStart", "my-plugin:code-reviewer"],
          ["SubagentStop", "^my-plugin:.*"],
          ["UserPromptExpansion", "my-plugin:deploy"],
          ["FileChanged", "\\.envrc$"],
          ["FileChanged", "^\\.env"],
          ["Elicitation", "mcp__byre"]
        ] as const
      ) {
        const exit = yield* built(Hooks.on(event, { matcher }, () => Effect.succeed({})))
        assert.isTrue(Exit.isSuccess(exit), `${event} ${matcher}`)
      }
    }))

  // A sixth review: PreSkillShellCommand matches on a tool's name too, and a matcher the CLI
  // cannot compile matches nothing whatever the event.
  it.effect("PreSkillShellCommand's matchers are checked as a tool event's; one that does not compile, on any event", () =>
    Effect.gen(function*() {
      for (const matcher of ["bash", "Bash(touch:*)", "Bash("]) {
        assert.isTrue(Exit.isFailure(yield* built(Hooks.on("PreSkillShellCommand", { matcher }, () => Effect.succeed({})))), matcher)
      }
      for (const [event, matcher] of [["SessionStart", "startup("], ["Notification", "[permission_prompt"]] as const) {
        assert.isTrue(Exit.isFailure(yield* built(Hooks.on(event, { matcher }, () => Effect.succeed({})))), `${event} ${matcher}`)
      }
    }))
})
