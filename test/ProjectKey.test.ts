/**
 * The project key (the CLI's project directory name for a working directory) against the names
 * the real CLI 2.1.332 made (`testdata/sessions/project-keys.json`, recorded by
 * `scripts/record-project-keys.ts`), and the config directory as the CLI finds it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as EffectPath from "effect/Path"
import * as ProjectKey from "../src/internal/projectKey.ts"
import * as Sessions from "../src/Sessions.ts"

interface Recording {
  readonly cli: string
  readonly recorded: ReadonlyArray<{ readonly cwd: string; readonly projectDir: string }>
}

const recording: Recording = JSON.parse(
  Fs.readFileSync(Path.resolve(import.meta.dirname, "../testdata/sessions/project-keys.json"), "utf8")
)

describe("ProjectKey", () => {
  it("the recording covers spaces, dots, non-ASCII, surrogate pairs and paths past 200 characters", () => {
    const cwds = recording.recorded.map((r) => r.cwd)
    assert.strictEqual(recording.cli, "2.1.332")
    assert.isTrue(cwds.some((c) => c.includes(" ")))
    assert.isTrue(cwds.some((c) => c.includes(".")))
    assert.isTrue(cwds.some((c) => /[^\u0000-\u007f]/.test(c)))
    assert.isTrue(cwds.some((c) => /[\ud800-\udbff]/.test(c)))
    assert.isTrue(recording.recorded.some((r) => ProjectKey.sanitize(r.cwd).length > 200))
    assert.isTrue(recording.recorded.some((r) => ProjectKey.sanitize(r.cwd).length <= 200))
    // Long paths are cut by the CLI: a hash follows the first 200 characters.
    for (const r of recording.recorded) {
      if (ProjectKey.sanitize(r.cwd).length > 200) assert.match(r.projectDir, /^.{200}-[0-9a-z]+$/)
    }
  })

  for (const { cwd, projectDir } of recording.recorded) {
    it(`the CLI's name for ${JSON.stringify(cwd.slice(-40))} (${cwd.length} characters)`, () => {
      assert.strictEqual(Sessions.projectKey(cwd), projectDir)
    })
  }

  it("each UTF-16 code unit that is not an ASCII letter or digit is one dash", () => {
    assert.strictEqual(ProjectKey.fromCwd("/a b/c.d_e-f/é😀"), "-a-b-c-d-e-f----")
  })

  it("exactly 200 characters stays whole; 201 is cut with the hash of the unsanitized path", () => {
    const at200 = "/" + "x".repeat(199)
    assert.strictEqual(ProjectKey.fromCwd(at200), "-" + "x".repeat(199))
    const at201 = "/" + "x".repeat(200)
    const key = ProjectKey.fromCwd(at201)
    assert.strictEqual(key, `-${"x".repeat(199)}-${Math.abs(ProjectKey.hash(at201)).toString(36)}`)
    // Two long paths that sanitize alike differ by their hash.
    assert.notStrictEqual(ProjectKey.fromCwd(at201.replace("/", ".")), key)
  })

  it("CLAUDE_CODE_PROJECT_DIR_NAME overrides the key only with CLAUDE_CONFIG_DIR and only when valid", () => {
    assert.strictEqual(ProjectKey.forEnvironment("/a/b", { CLAUDE_CODE_PROJECT_DIR_NAME: "mine" }), "-a-b")
    assert.strictEqual(
      ProjectKey.forEnvironment("/a/b", { CLAUDE_CONFIG_DIR: "/c", CLAUDE_CODE_PROJECT_DIR_NAME: "mine" }),
      "mine"
    )
    assert.strictEqual(ProjectKey.forEnvironment("/a/b", { CLAUDE_CONFIG_DIR: "/c", CLAUDE_CODE_PROJECT_DIR_NAME: "a/b" }), "-a-b")
    assert.strictEqual(ProjectKey.forEnvironment("/a/b", { CLAUDE_CONFIG_DIR: "/c", CLAUDE_CODE_PROJECT_DIR_NAME: "con" }), "-a-b")
  })

  const configDirFrom = (env: Record<string, string>) =>
    Sessions.configDir.pipe(
      Effect.provide(EffectPath.layer),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))
    )

  it.effect("the config directory: CLAUDE_CONFIG_DIR when set, else ~/.claude; an empty CLAUDE_CONFIG_DIR is unset", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* configDirFrom({ HOME: "/h", CLAUDE_CONFIG_DIR: "/c/d" }), "/c/d")
      assert.strictEqual(yield* configDirFrom({ HOME: "/h" }), "/h/.claude")
      assert.strictEqual(yield* configDirFrom({ HOME: "/h", CLAUDE_CONFIG_DIR: "" }), "/h/.claude")
      assert.strictEqual(ProjectKey.configDir({}, "/h", (...p) => p.join("/")), "/h/.claude")
    }))

  it.effect("no CLAUDE_CONFIG_DIR and no home is a ConfigError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(configDirFrom({}))
      assert.strictEqual(error._tag, "ConfigError")
    }))
})
