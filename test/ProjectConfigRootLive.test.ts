/**
 * `projectConfigRoot` on the real CLI: a session in a worktree runs the trusted checkout's
 * project settings and commands, not the ones the worktree's branch carries.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type * as Claude from "../src/Claude.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

const script = () => [
  FakeModel.toolUse("Bash", { command: "touch made-by-bash", description: "Make a file" }),
  FakeModel.text("done")
]

/** A directory with project settings and one command, removed with the scope. */
const projectWith = (settings: object, command: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-project-root-"))
      Fs.mkdirSync(Path.join(dir, ".claude", "commands"), { recursive: true })
      Fs.writeFileSync(Path.join(dir, ".claude", "settings.json"), JSON.stringify(settings))
      Fs.writeFileSync(Path.join(dir, ".claude", "commands", `${command}.md`), `Say ${command}.\n`)
      return dir
    }),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )

/** The names of the session's commands, as its `initialize` answer lists them. */
const commandsOf = (offline: { readonly session: Claude.Session }) =>
  Effect.map(offline.session.initializeResult, (init) => init.commands.map((command) => command.name))

describe("projectConfigRoot (real CLI)", { timeout: 120_000 }, () => {
  it.live("the trusted root's commands and deny rule apply to a session in another directory (the branch), the branch's do not", () =>
    Effect.scoped(Effect.gen(function*() {
      const trusted = yield* projectWith({ permissions: { deny: ["Bash"] } }, "trusted-cmd")
      const branch = yield* projectWith({}, "branch-cmd")
      const options = { executable: cliPath, cwd: branch, permissionMode: "default", allowedTools: ["Bash"] } as const
      const plain = yield* Offline.open(script(), options)
      yield* plain.session.run("Make a file")
      assert.isTrue(Fs.existsSync(Path.join(branch, "made-by-bash")), "without the trusted root, the command runs")
      Fs.rmSync(Path.join(branch, "made-by-bash"))
      const plainCommands = yield* commandsOf(plain)
      assert.include(plainCommands, "branch-cmd")
      assert.notInclude(plainCommands, "trusted-cmd")

      const rooted = yield* Offline.open(script(), { ...options, projectConfigRoot: trusted })
      yield* rooted.session.run("Make a file")
      assert.isFalse(Fs.existsSync(Path.join(branch, "made-by-bash")), "the trusted root's deny did not hold")
      const rootedCommands = yield* commandsOf(rooted)
      assert.include(rootedCommands, "trusted-cmd")
      assert.notInclude(rootedCommands, "branch-cmd")
    })).pipe(Effect.provide(processLayer)))

  it.live("a projectConfigRoot that is no directory: the CLI refuses it, ProcessExited naming the option, nothing runs", () =>
    Effect.scoped(Effect.gen(function*() {
      const branch = yield* projectWith({}, "branch-cmd")
      const rooted = yield* Offline.open(script(), {
        executable: cliPath,
        cwd: branch,
        permissionMode: "default",
        allowedTools: ["Bash"],
        projectConfigRoot: Path.join(branch, "missing")
      })
      const error = yield* Effect.flip(rooted.session.run("Make a file"))
      assert.strictEqual(error.reason._tag, "ProcessExited", String(error))
      if (error.reason._tag === "ProcessExited") assert.include(error.reason.stderrTail, "--project-config-root")
      assert.isFalse(Fs.existsSync(Path.join(branch, "made-by-bash")))
    })).pipe(Effect.provide(processLayer)))
})
