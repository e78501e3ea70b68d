/**
 * Records the project directory names the real `claude` CLI (the pinned devDependency) makes for
 * tricky working directories (spaces, dots, non-ASCII, very long paths), into
 * `testdata/sessions/project-keys.json`, which `test/ProjectKey.test.ts` checks
 * `ProjectKey.fromCwd` against. Each case runs one turn on the fake model in a fresh HOME and
 * reads the one directory the CLI made under `<HOME>/.claude/projects/`.
 *
 * `node scripts/record-project-keys.ts [base]`: the working directories are made under `base`
 * (default `/var/tmp/effect-claude-code-project-keys`, a fixed path so the recording does not
 * change from run to run; it is removed afterwards).
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { cliPath, processLayer } from "../examples/support.ts"

const base = process.argv[2] ?? "/var/tmp/effect-claude-code-project-keys"
const names = [
  "plain",
  "with space",
  "dots.and_under-score",
  "ünïcödé-日本",
  "emoji😀x",
  "x".repeat(160),
  "x".repeat(200),
  "a".repeat(120) + "/" + "b.c ".repeat(40)
]

interface Recorded {
  readonly cwd: string
  readonly projectDir: string
}

const program = Effect.gen(function*() {
  const recorded: Array<Recorded> = []
  for (const name of names) {
    const cwd = Path.join(base, name)
    Fs.mkdirSync(cwd, { recursive: true })
    const { home, options } = yield* Offline.make(() => FakeModel.text("ok"), { executable: cliPath, cwd })
    yield* Claude.query("hello", options)
    const dirs = Fs.readdirSync(Path.join(home, ".claude", "projects"))
    if (dirs.length !== 1) return yield* Effect.die(new Error(`expected one project directory, found ${dirs.join(", ")}`))
    recorded.push({ cwd: Fs.realpathSync(cwd), projectDir: dirs[0]! })
  }
  return recorded
}).pipe(Effect.scoped, Effect.provide(processLayer))

const recorded = await Effect.runPromise(program).finally(() => Fs.rmSync(base, { recursive: true, force: true }))
const file = Path.resolve(import.meta.dirname, "../testdata/sessions/project-keys.json")
Fs.writeFileSync(file, JSON.stringify({ cli: "2.1.332", recorded }, null, 2) + "\n")
console.log(`${recorded.length} project directories recorded into ${Path.relative(process.cwd(), file)}`)
