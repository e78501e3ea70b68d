/**
 * The `--mcp-config` JSON as an owner-only file (`jsonInRoot`): only the first `--mcp-config`
 * was moved off the command line, so a program's own `--mcp-config` JSON in `extraArgs` (the CLI
 * reads every one), with its servers' tokens, stayed on the command line any user of the machine
 * can read, next to the library's, which went to the file (found by a review). Each inline JSON
 * value goes to a file of its own now.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Redacted from "effect/Redacted"
import * as CliTmpRoot from "../src/internal/cliTmpRoot.ts"
import * as Launch from "../src/Launch.ts"

const OWN = "tok-own-0123456789abcdef"
const LIB = "tok-lib-0123456789abcdef"
const own = JSON.stringify({ mcpServers: { own: { type: "http", url: "https://own.example/mcp", headers: { Authorization: `Bearer ${OWN}` } } } })

describe("jsonInRoot: every inline --mcp-config", () => {
  it.effect("the library's and the extraArgs' JSON each go to an owner-only file; no token on the command line", () =>
    Effect.gen(function*() {
      const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-mcp-every-"))
      try {
        for (const extraArgs of [["--mcp-config", own], [`--mcp-config=${own}`]]) {
          const dir = Fs.mkdtempSync(Path.join(root, "r-"))
          const command = Launch.buildCommand({
            mcpServers: { api: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: Redacted.make(`Bearer ${LIB}`) } } },
            extraArgs
          }, { mcpServers: [], permissionPromptTool: false })
          const args = yield* CliTmpRoot.jsonInRoot(command.args, dir)
          const line = args.join(" ")
          assert.notInclude(line, LIB)
          assert.notInclude(line, OWN)
          const files = Fs.readdirSync(dir).filter((name) => name !== "settings.json").map((name) => Path.join(dir, name))
          assert.lengthOf(files, 2)
          const contents = files.map((file) => {
            assert.strictEqual(Fs.statSync(file).mode & 0o777, 0o600)
            assert.include(args.join("\n"), file)
            return Fs.readFileSync(file, "utf8")
          }).join("\n")
          assert.include(contents, LIB)
          assert.include(contents, OWN)
        }
      } finally {
        Fs.rmSync(root, { recursive: true, force: true })
      }
    }))
})
