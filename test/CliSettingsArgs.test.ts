/**
 * `internal/cliTmpRoot.ts`: which `--settings` value the process transport moves to a file in the
 * CLI's own root (test/SettingsFileLive.test.ts runs it with the CLIs). The one CLI 2.1.0 would
 * write to its TMPDIR: the first `--settings <value>` or `--settings=<value>` (2.1.0 reads the
 * first), when that value is inline JSON (trimmed, `{`…`}`, as 2.1.0 tells it) that parses. A
 * file's path, or a value the CLI would refuse, is left for the CLI.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Os from "node:os"
import * as Launch from "../src/Launch.ts"
import { inlineJson, jsonInRoot } from "../src/internal/cliTmpRoot.ts"

const inlineSettings = (args: ReadonlyArray<string>) => inlineJson(args, "--settings")

const json = "{\"attribution\":{\"commit\":\"\",\"pr\":\"\"}}"

describe("the inline --settings JSON of a command line", () => {
  it("the one buildCommand puts there: found, as given", () => {
    const { args } = Launch.buildCommand({ settings: { model: "sonnet" } }, { mcpServers: [], permissionPromptTool: false })
    const found = inlineSettings(args)
    assert.isDefined(found)
    assert.strictEqual(args[found!.index], "--settings")
    assert.isFalse(found!.joined)
    assert.strictEqual(found!.json, args[found!.index + 1])
    assert.deepStrictEqual(JSON.parse(found!.json), { attribution: { commit: "", pr: "" }, model: "sonnet" })
  })

  it("--settings=<json>, and a value with blanks around it (trimmed, as 2.1.0 writes it)", () => {
    assert.deepStrictEqual(inlineSettings(["--verbose", `--settings=${json}`]), { index: 1, joined: true, json })
    assert.deepStrictEqual(inlineSettings(["--settings", ` ${json}\n`]), { index: 0, joined: false, json })
  })

  it("only the first --settings counts: a path first leaves a later JSON alone", () => {
    assert.isUndefined(inlineSettings(["--settings", "my-settings.json", "--settings", json]))
    assert.deepStrictEqual(inlineSettings(["--settings", json, "--settings", "{}"]), { index: 0, joined: false, json })
  })

  it("none: no --settings, a --settings with no value, a path, JSON that does not parse, a JSON array", () => {
    assert.isUndefined(inlineSettings(["--verbose"]))
    assert.isUndefined(inlineSettings(["--model", "sonnet", "--settings"]))
    assert.isUndefined(inlineSettings(["--settings", "settings.json"]))
    assert.isUndefined(inlineSettings(["--settings", "{not json}"]))
    assert.isUndefined(inlineSettings(["--settings", "[1]"]))
  })

  it.effect("a file that cannot be written (no such root): the arguments as they were", () =>
    Effect.gen(function*() {
      const args = ["--verbose", "--settings", json]
      const root = Path.join(Os.tmpdir(), `ecc-no-such-root-${crypto.randomUUID()}`)
      assert.deepStrictEqual(yield* jsonInRoot(args, root), args)
      assert.deepStrictEqual(yield* jsonInRoot(["--settings", "settings.json"], root), ["--settings", "settings.json"])
    }))
})

describe("the inline --mcp-config JSON (its servers' credentials) goes to an owner-only file too", () => {
  it.effect("both flags' JSON in files of the root, each path in its JSON's place; a path left as it is", () =>
    Effect.gen(function*() {
      const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-root-"))
      const mcp = `{"mcpServers":{"api":{"type":"http","url":"https://x.example","headers":{"Authorization":"Bearer t"}}}}`
      const out = yield* jsonInRoot(["--settings", json, "--mcp-config", mcp, "--model", "m"], root)
      assert.deepStrictEqual(out, ["--settings", Path.join(root, "settings.json"), "--mcp-config", Path.join(root, "mcp-config.json"), "--model", "m"])
      assert.strictEqual(Fs.readFileSync(Path.join(root, "mcp-config.json"), "utf8"), mcp)
      assert.strictEqual(Fs.statSync(Path.join(root, "mcp-config.json")).mode & 0o777, 0o600)
      const joined = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-root-"))
      assert.deepStrictEqual(yield* jsonInRoot([`--mcp-config=${mcp}`], joined), [`--mcp-config=${Path.join(joined, "mcp-config.json")}`])
      assert.deepStrictEqual(yield* jsonInRoot(["--mcp-config", "servers.json"], joined), ["--mcp-config", "servers.json"])
      Fs.rmSync(root, { recursive: true, force: true })
      Fs.rmSync(joined, { recursive: true, force: true })
    }))
})
