/**
 * The `--mcp-config` JSON reaches the CLI as an owner-only file of its temporary root, not on
 * its command line, which any user of the machine can read (`/proc/<pid>/cmdline`, `ps`): it
 * holds the external MCP servers' `headers` and `env`, a `Redacted` token revealed for the CLI
 * (found with the review of MCP configs' secrets). The real CLI reads the file
 * (`test/McpConfigLive.test.ts`, `test/McpLive.test.ts` run through it).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Claude from "../src/Claude.ts"
import { processLayer } from "./support/live.ts"
import { makeTempDir } from "./support/realCli.ts"

const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")
const TOKEN = "tok-mcp-file-0123456789abcdef"

describe("the --mcp-config JSON as a file (fake CLI)", { timeout: 60_000 }, () => {
  it.live("the CLI's argv holds the path of an owner-only file in its root, which holds the servers' config; no token on the command line", () =>
    Effect.gen(function*() {
      const tmp = yield* makeTempDir("ecc-mcp-config-tmp-")
      const session = yield* Claude.open({
        executable: FAKE,
        mcpServers: { api: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: Redacted.make(`Bearer ${TOKEN}`) } } },
        env: { FAKE_CLAUDE_MODE: "", FAKE_CLAUDE_ENV_KEYS: "CLAUDE_CODE_TMPDIR", TMPDIR: tmp }
      })
      const events = yield* session.turn("hello").pipe(Stream.runCollect)
      const init = events.find((event) => event.type === "system" && event.subtype === "init") as unknown as {
        readonly fake_argv: ReadonlyArray<string>
        readonly fake_env: Readonly<Record<string, string | null>>
      }
      assert.isDefined(init)
      assert.notInclude(init.fake_argv.join(" "), TOKEN)
      const file = init.fake_argv[init.fake_argv.indexOf("--mcp-config") + 1]!
      assert.strictEqual(Path.dirname(file), init.fake_env.CLAUDE_CODE_TMPDIR)
      assert.strictEqual(Fs.statSync(file).mode & 0o777, 0o600)
      const config = JSON.parse(Fs.readFileSync(file, "utf8")) as { mcpServers: { api: { headers: Record<string, string> } } }
      assert.strictEqual(config.mcpServers.api.headers.Authorization, `Bearer ${TOKEN}`)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
