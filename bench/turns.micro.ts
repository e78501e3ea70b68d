/**
 * Micro-benchmark of the library's own work per short turn (scratch, not a test):
 *
 *   node bench/turns.micro.ts [turns] [rounds]
 *   BENCH_DIST=.tmp/bench-dist node bench/turns.micro.ts   # the compiled library instead of src
 *   node --expose-gc --min-semi-space-size=256 --max-semi-space-size=256 bench/turns.micro.ts 2000
 *     # + the bytes a turn allocates (no scavenge within a round; deterministic, unlike time)
 *
 * No process: an in-memory transport answers each user line with one turn of
 * `bench/fake-cli-load.mjs` (13 deltas, 22 lines, captured once at start), in one chunk on the
 * next tick, as a pipe would deliver it. What is left is the session engine: writing the user
 * line, reading, decoding and routing 22 lines, the turn's stream. Prints CPU µs and wall µs per
 * turn for each round (the figures of `npm run bench`'s short turns add the pipes, the CLI and
 * the scheduler of a shared machine).
 */
import * as ChildProcess from "node:child_process"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as ClaudeModule from "../src/Claude.ts"
import type * as TransportModule from "../src/Transport.ts"
import * as InMemoryTransport from "../test/support/inMemoryTransport.ts"

const root = Path.resolve(import.meta.dirname, "..")
const dist = process.env.BENCH_DIST
const load = <A>(file: string): Promise<A> =>
  import(dist === undefined ? Path.join(root, "src", `${file}.ts`) : Path.resolve(dist, `${file}.js`)) as Promise<A>
const Claude = await load<typeof ClaudeModule>("Claude")
const { Transport } = await load<typeof TransportModule>("Transport")

const turns = Number(process.argv[2] ?? 5_000)
const roundsN = Number(process.argv[3] ?? 3)

// One turn of the load fake, as it writes it.
const captured = ChildProcess.spawnSync(process.execPath, [Path.join(root, "bench/fake-cli-load.mjs")], {
  input: JSON.stringify({ type: "user", message: { role: "user", content: "go" }, parent_tool_use_id: null, session_id: "" }) + "\n",
  env: { ...process.env, FAKE_CLI_EVENTS: "13" },
  encoding: "utf8"
}).stdout
const turnBytes = new TextEncoder().encode(captured)

const transport = InMemoryTransport.layer(Transport, () => turnBytes)

/** With `--expose-gc`: the heap after a full GC (what the session keeps). */
const gcHeap = (): string => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) return ""
  gc()
  return ` (after GC ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1)} MB)`
}

const program = Effect.gen(function*() {
  const session = yield* Claude.open({})
  let lines = 0
  const count = Stream.runForEach((_: { readonly type: string }) => Effect.sync(() => void lines++))
  for (let i = 0; i < 200; i++) yield* count(session.turn("go"))
  for (let r = 0; r < roundsN; r++) {
    lines = 0
    const gc = (globalThis as { gc?: () => void }).gc
    gc?.()
    const heapBefore = process.memoryUsage().heapUsed
    const cpu = process.cpuUsage()
    const start = performance.now()
    for (let i = 0; i < turns; i++) yield* count(session.turn("go"))
    const wall = performance.now() - start
    const used = process.cpuUsage(cpu)
    // Heap growth over the round, from a full GC: the bytes a turn allocates, when the young
    // generation is large enough that no scavenge runs in between (node --expose-gc
    // --min-semi-space-size=256 --max-semi-space-size=256, and turns × ~30 KB under that).
    const allocated = (process.memoryUsage().heapUsed - heapBefore) / turns
    console.log(
      `round ${r + 1}: ${turns} turns of ${lines / turns} lines: CPU ${((used.user + used.system) / turns).toFixed(1)} µs/turn, wall ${((1000 * wall) / turns).toFixed(1)} µs/turn, heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1)} MB${gcHeap()}${gc === undefined ? "" : `, heap growth ${(allocated / 1024).toFixed(1)} KB/turn`}`
    )
  }
}).pipe(Effect.scoped, Effect.provide(transport))

await Effect.runPromise(program)
