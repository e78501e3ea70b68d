/**
 * The API reference's check (`npm run docs:check`, `scripts/docs/check.ts`) in the suite: every
 * declaration the public entry points reach is documented, and every ```ts block of the TSDoc
 * (under `@example` or not) type-checks. The check itself is shown to catch both on a small module written to a temp dir.
 *
 * Live: the examples are type-checked by `tsc` in a child process, and TypeDoc's conversion of the
 * whole API takes seconds; hence the file's own timeout, above the live tier's 60 s on a busy machine.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { checkExamples, examplesOf, findGaps, root, sourceFiles, typedocOptions } from "../scripts/docs/check.ts"

describe("API reference", { timeout: 240_000 }, () => {
  it.live("every public export and member of src/ is documented", () =>
    Effect.gen(function*() {
      const gaps = yield* Effect.promise(() => findGaps({ optionsFile: typedocOptions }))
      assert.deepStrictEqual(gaps.map((gap) => `${gap.where}: ${gap.name}`), [])
    }))

  it.live("every ```ts block of the TSDoc in src/ type-checks", () =>
    Effect.sync(() => {
      const examples = examplesOf(sourceFiles(Path.join(root, "src")))
      assert.isAbove(examples.length, 0)
      assert.deepStrictEqual(checkExamples(examples, Path.join(root, ".tmp", "api-examples")), [])
    }))

  it.live("npm run docs renders the reference: every entry, and a message type as its fields", () =>
    Effect.gen(function*() {
      const out = Fs.mkdtempSync(Path.join(Os.tmpdir(), "api-docs-out-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(out, { recursive: true, force: true })))
      const typedoc = Path.join(root, "scripts/docs/node_modules/typedoc/bin/typedoc")
      const run = ChildProcess.spawnSync(process.execPath, [typedoc, "--options", typedocOptions, "--out", out], {
        cwd: root,
        encoding: "utf8"
      })
      assert.strictEqual(run.status, 0, run.stdout + run.stderr)
      // One folder per entry point of typedoc.json (`src/testing/index.ts` renders as `testing`).
      const entries = (JSON.parse(Fs.readFileSync(typedocOptions, "utf8")) as { readonly entryPoints: ReadonlyArray<string> })
        .entryPoints.map((entry) => entry.replace(/^.*\/src\//, "").replace(/\/index\.ts$|\.ts$/, ""))
      assert.includeMembers(entries, ["index", "node", "testing", "sql", "pg", "ai", "cluster"])
      assert.deepStrictEqual(Fs.readdirSync(out).filter((name) => !name.endsWith(".md")).sort(), [...entries].sort())
      const page = Fs.readFileSync(Path.join(out, "index/namespaces/Protocol/interfaces/AssistantMessage.md"), "utf8")
      for (const field of ["message", "parent\\_tool\\_use\\_id", "session\\_id", "uuid"]) assert.include(page, `### ${field}`)
    }))

  it.live("the check finds an undocumented export, an undocumented option and a broken example", () =>
    Effect.gen(function*() {
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "api-docs-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true })))
      const file = Path.join(dir, "index.ts")
      Fs.writeFileSync(
        file,
        [
          "/** Documented. */",
          "export const documented = 1",
          "export const bare = 2",
          "/**",
          " * Takes options.",
          " *",
          " * @example",
          " * ```ts",
          " * const n: number = \"not a number\"",
          " * ```",
          " */",
          "export const withOptions = (options: { readonly size: number }): number => options.size",
          ""
        ].join("\n")
      )
      Fs.writeFileSync(
        Path.join(dir, "tsconfig.json"),
        JSON.stringify({ compilerOptions: { strict: true, module: "NodeNext", target: "ES2023" }, files: ["index.ts"] })
      )
      const gaps = yield* Effect.promise(() =>
        findGaps({ entryPoints: [file], tsconfig: Path.join(dir, "tsconfig.json"), base: dir })
      )
      // `documented` is not reported; `bare` (line 3) and the option `size` (line 12) are.
      assert.deepStrictEqual(gaps.map((gap) => [gap.where.split(":").pop(), gap.name.split(".").pop()]), [["3", "bare"], [
        "12",
        "size"
      ]])
      const examples = examplesOf([file])
      assert.strictEqual(examples.length, 1)
      const errors = checkExamples(examples, Path.join(dir, "examples"))
      assert.strictEqual(errors.length, 1)
      assert.match(errors[0]!, /index\.ts:9:\d+ \(@example\).*TS2322/)
    }))
})
