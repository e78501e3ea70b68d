/**
 * A permission handler: with `permissionMode: "default"` and a `Permissions` layer, the CLI asks
 * the program (`can_use_tool`) before each tool call it would ask a person about (commands it
 * knows to be read-only, like `ls` or `echo`, it runs without asking). Here network commands are
 * denied, with a message the model reads, and the rest is allowed.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { fakeModel, isMain, processLayer } from "./support.ts"

/** What happened: each decision, what the tools returned, and the denials the result lists. */
export interface PermissionsOutcome {
  readonly decisions: ReadonlyArray<{ readonly tool: string; readonly command: string; readonly allowed: boolean }>
  readonly toolResults: ReadonlyArray<string>
  readonly denials: number
  readonly madeDirectory: boolean
}

/** The fake model runs `mkdir out` (allowed), then `curl` (denied), then answers. */
export const program: Effect.Effect<PermissionsOutcome, ClaudeError.ClaudeError> = Effect.gen(function*() {
  const decisions: Array<{ readonly tool: string; readonly command: string; readonly allowed: boolean }> = []
  const PermissionsLive = Permissions.layer((request) =>
    Effect.sync(() => {
      // `tool_name === "Bash"` narrows the request: `input.command` is a string.
      const command = request.tool_name === "Bash" ? request.input.command : ""
      const allowed = !/\b(curl|wget)\b/.test(command)
      decisions.push({ tool: request.tool_name, command, allowed })
      return allowed ? Permissions.allow() : Permissions.deny(`No network from here: ${command}`)
    })
  )
  const { model, cwd, options } = yield* fakeModel([
    FakeModel.toolUse("Bash", { command: "mkdir out", description: "Make a directory" }),
    FakeModel.toolUse("Bash", { command: "curl https://example.com", description: "Fetch a page" }),
    FakeModel.text("I made the directory; fetching was not allowed.")
  ], { permissionMode: "default" })
  const session = yield* Claude.open(options).pipe(Effect.provide(PermissionsLive))
  const result = yield* session.run("Make a directory out, then fetch example.com.")
  const requests = yield* model.messageRequests
  const toolResults = requests.flatMap((request) => FakeModel.toolResults(request).map((r) => r.content))
  for (const d of decisions) yield* Console.log(`${d.allowed ? "allowed" : "denied "} ${d.tool}: ${d.command}`)
  return {
    decisions,
    toolResults,
    denials: result.permission_denials.length,
    madeDirectory: Fs.existsSync(Path.join(cwd, "out"))
  }
}).pipe(Effect.scoped, Effect.provide(processLayer))

if (isMain(import.meta)) NodeRuntime.runMain(program)
