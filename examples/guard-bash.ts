/**
 * A hook that guards Bash: a `PreToolUse` hook, matched on `Bash`, denies any command that
 * runs `rm`, with a reason the model reads. Hooks are a Layer: the session registers them in
 * `initialize` and the CLI calls them over the control channel.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Hooks from "../src/Hooks.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { fakeModel, isMain, processLayer } from "./support.ts"

/** What happened: the commands the hook refused, what the model was told, and the file. */
export interface GuardOutcome {
  readonly denied: ReadonlyArray<string>
  readonly toolResult: string
  readonly fileStillThere: boolean
  readonly answer: string
}

/** The fake model tries `rm -rf build`, the hook refuses, the model reads why. */
export const program: Effect.Effect<GuardOutcome, ClaudeError.ClaudeError> = Effect.gen(function*() {
  const denied: Array<string> = []
  const GuardLive = Hooks.layer(
    Hooks.on("PreToolUse", { matcher: "Bash" }, (input) =>
      Effect.sync(() => {
        // The matcher names Bash exactly, so the input is Bash's: `tool_input.command` is a string.
        const command = input.tool_input.command
        if (!/(^|[\s;&|])rm\s/.test(command)) return Hooks.allow()
        denied.push(command)
        return Hooks.deny("Deleting files is not allowed here.")
      }))
  )
  const { model, cwd, options } = yield* fakeModel([
    FakeModel.toolUse("Bash", { command: "rm -rf build", description: "Clean the build" }),
    FakeModel.text("Understood, I will not delete anything.")
  ])
  Fs.mkdirSync(Path.join(cwd, "build"))
  Fs.writeFileSync(Path.join(cwd, "build", "keep.txt"), "keep me\n")
  const session = yield* Claude.open(options).pipe(Effect.provide(GuardLive))
  const result = yield* session.run("Clean up the build directory.")
  const [, second] = yield* model.messageRequests
  const toolResult = second === undefined ? "" : FakeModel.toolResults(second)[0]?.content ?? ""
  yield* Console.log(`denied: ${denied.join(", ")}; the model was told: ${toolResult}`)
  return {
    denied,
    toolResult,
    fileStillThere: Fs.existsSync(Path.join(cwd, "build", "keep.txt")),
    answer: result.result ?? ""
  }
}).pipe(Effect.scoped, Effect.provide(processLayer))

if (isMain(import.meta)) NodeRuntime.runMain(program)
