/**
 * The two test tiers (issue 20): `unit` runs in memory and in seconds (`npm run test:unit`, the edit
 * loop); `live` starts processes (`npm run test:live`). A file's name says its tier: `*Live.test.ts`
 * is live, any other `*.test.ts` under test/ is unit (vitest.config.ts). This test keeps that true:
 * a unit file starts no process (no child_process, no process transport, no fake CLI script, no real
 * CLI), a live file does, and no test file sits where neither project looks.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"

const root = Path.resolve(import.meta.dirname, "..")
const testDir = Path.join(root, "test")

/** What, in a test file's text, starts a process (directly or through a helper that does). */
const spawns: ReadonlyArray<{ readonly what: string; readonly pattern: RegExp }> = [
  { what: "Node's child_process", pattern: /from "node:child_process"/ },
  { what: "Node's platform layer (a process spawner)", pattern: /from "@effect\/platform-node"/ },
  { what: "the process transport", pattern: /\blayerProcess\b|processTransport/ },
  { what: "the real-CLI helpers of test/support", pattern: /from "\.\/support\/(?:live|realCli|cliVersions)\.ts"/ },
  { what: "the helpers of test/support that run node (the package's build, the load probe)", pattern: /from "\.\/support\/(?:packageAsBuilt|loadProbe)\.ts"/ },
  { what: "the PostgreSQL server of test/support", pattern: /from "\.\/support\/postgres\.ts"/ },
  { what: "a fake CLI process of test/fixtures", pattern: /fixtures[/"', ]+[\w-]+\.mjs|fake-claude\.mjs"|chaos-claude/ },
  { what: "the examples (they run the real CLI)", pattern: /from "\.\.\/examples\// },
  { what: "the live conformance harness", pattern: /\bliveHarness\b/ },
  { what: "the API reference's check (it runs tsc on the examples)", pattern: /from "\.\.\/scripts\/docs\/check\.ts"/ }
]

/** Unit files allowed one of the markers above, each with the reason. */
const unitExceptions: Readonly<Record<string, { readonly what: string; readonly why: string }>> = {
  "SelfContained.test.ts": { what: "Node's child_process", why: "runs `git ls-files` (no CLI) to list the tracked files" },
  "ClaudeSession.test.ts": { what: "the process transport", why: "checks that Claude.layer is Claude.layerProcess; opens nothing" }
}

const isLive = (file: string) => file.endsWith("Live.test.ts")

/** Every file under `dir`, relative to the repository root. */
const walk = (dir: string): Array<string> =>
  Fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = Path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name.startsWith(".") ? [] : walk(path)
    return [Path.relative(root, path)]
  })

/** The markers found in `text`, by name. */
const markers = (text: string): Array<string> => spawns.filter(({ pattern }) => pattern.test(text)).map(({ what }) => what)

const testFiles = Fs.readdirSync(testDir).filter((file) => file.endsWith(".test.ts")).sort()

describe("test tiers", () => {
  it("the markers recognise each way of starting a process, and leave in-memory tests alone", () => {
    // Spelled in pieces, so that this file does not match its own check.
    const samples = [
      `import * as ChildProcess from "${"node"}:child_process"`,
      `import { NodeServices } from "${"@effect"}/platform-node"`,
      `Claude.${"layer"}Process.pipe(Layer.provide(NodeServices.layer))`,
      `import { processLayer } from "./${"support"}/live.ts"`,
      `import { spawnRawCli } from "./${"support"}/realCli.ts"`,
      `import { startPostgres } from "./${"support"}/postgres.ts"`,
      `Path.resolve(import.meta.dirname, "${"fixtures"}/fake-claude.mjs")`,
      `Path.join(import.meta.dirname, "${"fixtures"}", "${"chaos"}-claude.mjs")`,
      `import * as Chat from "${".."}/examples/chat.ts"`,
      `Effect.flatMap(${"live"}Harness(scenario), scenario.run)`,
      `import { findGaps } from "${".."}/scripts/docs/check.ts"`
    ]
    for (const sample of samples) assert.isNotEmpty(markers(sample), sample)
    const fine = [
      `import * as FakeCli from "../src/testing/FakeCli.ts"`,
      `Replay.layer(Path.resolve(import.meta.dirname, "../testdata/transcripts/plain-text.ndjson"))`,
      `const server = yield* FakeModel.make([FakeModel.text("hi")])`,
      `import { replayHarness, scenarios } from "./scenarios.ts"`
    ]
    for (const sample of fine) assert.deepStrictEqual(markers(sample), [], sample)
  })

  it("there are files in both tiers", () => {
    assert.isAbove(testFiles.filter((file) => !isLive(file)).length, 20)
    assert.isAbove(testFiles.filter(isLive).length, 10)
  })

  it("a unit file starts no process: no child_process, process transport, fake CLI script or real CLI", () => {
    const problems: Array<string> = []
    // This file is left out: it holds the patterns themselves.
    for (const file of testFiles.filter((file) => !isLive(file) && file !== "Tiers.test.ts")) {
      const found = markers(Fs.readFileSync(Path.join(testDir, file), "utf8"))
      const allowed = unitExceptions[file]?.what
      for (const what of found) if (what !== allowed) problems.push(`${file}: ${what} (a live test: name it *Live.test.ts, or split it)`)
    }
    assert.deepStrictEqual(problems, [])
  })

  it("a live file starts a process (else it belongs to the unit tier)", () => {
    const idle = testFiles.filter(isLive).filter((file) => markers(Fs.readFileSync(Path.join(testDir, file), "utf8")).length === 0)
    assert.deepStrictEqual(idle, [])
  })

  it("every test file is in a project of its tier: *.test.ts files live directly in test/ (and the newcomer's test in examples/first-hour/); npm test runs them all", () => {
    const stray = walk(root)
      .filter((file) => /\.(?:test|spec)\.[cm]?[jt]sx?$/.test(file))
      .filter((file) => !["test", "examples/first-hour"].includes(Path.dirname(file)) || !file.endsWith(".test.ts"))
    assert.deepStrictEqual(stray, [])
    const config = Fs.readFileSync(Path.join(root, "vitest.config.ts"), "utf8")
    assert.include(config, `name: "unit", include: ["test/**/*.test.ts", EXAMPLE_TESTS], exclude: [LIVE, ...FRESH]`)
    assert.include(config, `name: "unit-fresh", include: FRESH`)
    assert.include(config, `name: "live", include: [LIVE]`)
    assert.include(config, `LIVE = "test/**/*Live.test.ts"`)
    const scripts = (JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts
    assert.strictEqual(scripts["test:unit"], "vitest run --project unit --project unit-fresh")
    assert.strictEqual(scripts["test:live"], "vitest run --project live")
    assert.strictEqual(scripts.test, "vitest run")
  })
})
