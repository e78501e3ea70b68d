/**
 * Micro-benchmark of `Protocol.decodeMessage` (scratch, not a test):
 *
 *   node bench/decode.micro.ts [iterations]
 *
 * Decodes real transcript lines (already parsed, and parsed + decoded) `iterations` times per
 * kind and prints ns/line. Compares with `Schema.decodeUnknownResult` on the full `Message` union.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaJit from "../src/internal/schemaJit.ts"
import * as Protocol from "../src/Protocol.ts"
import { readProtocolLines } from "../test/support/protocolTranscripts.ts"

// The guards use Effect's schema JIT compiler once it is loaded (a session loads it as it opens);
// the runs below are synchronous, so it is loaded first.
await Effect.runPromise(SchemaJit.load)

const iterations = Number(process.argv[2] ?? 1_000_000)

const recv: Array<{ readonly line: string; readonly msg: Record<string, unknown> }> = readProtocolLines()
  .filter((l) => l.dir === "recv")
  .map((l) => ({ line: JSON.stringify(l.msg), msg: l.msg }))

const kind = (m: Record<string, unknown>): string => {
  if (m.type === "stream_event") {
    const event = m.event as { type: string; delta?: { type: string } }
    return `stream_event/${event.type}${event.type === "content_block_delta" ? `/${event.delta!.type}` : ""}`
  }
  return m.type === "system" ? `system/${String(m.subtype)}` : String(m.type)
}

const groups = new Map<string, Array<{ readonly line: string; readonly msg: Record<string, unknown> }>>()
for (const r of recv) {
  const k = kind(r.msg)
  groups.set(k, [...(groups.get(k) ?? []), r])
}

let sink = 0
const time = (f: (i: number) => void, n: number): number => {
  for (let i = 0; i < Math.min(n, 50_000); i++) f(i) // warm-up
  const start = process.hrtime.bigint()
  for (let i = 0; i < n; i++) f(i)
  return Number(process.hrtime.bigint() - start) / n
}

const fullUnion = Schema.decodeUnknownResult(Protocol.Message)

const report = (name: string) => {
  const lines = groups.get(name)
  if (lines === undefined) return
  const n = name.startsWith("stream_event") ? iterations : Math.max(10_000, Math.floor(iterations / 10))
  const decode = time((i) => {
    const r = Protocol.decodeMessage(lines[i % lines.length]!.msg)
    if (Result.isSuccess(r)) sink++
  }, n)
  const parse = time((i) => {
    sink += (JSON.parse(lines[i % lines.length]!.line) as { type: string }).type.length
  }, n)
  const both = time((i) => {
    const r = Protocol.decodeMessage(JSON.parse(lines[i % lines.length]!.line))
    if (Result.isSuccess(r)) sink++
  }, n)
  const union = time((i) => {
    const r = fullUnion(lines[i % lines.length]!.msg)
    if (Result.isSuccess(r)) sink++
  }, Math.max(10_000, Math.floor(n / 10)))
  const bytes = Math.round(lines.reduce((s, l) => s + l.line.length, 0) / lines.length)
  console.log(
    `${name.padEnd(40)} ${String(bytes).padStart(6)} B  decode ${decode.toFixed(0).padStart(6)} ns` +
      `  JSON.parse ${parse.toFixed(0).padStart(6)} ns  parse+decode ${both.toFixed(0).padStart(6)} ns` +
      `  (Schema.decodeUnknownResult(Message): ${union.toFixed(0)} ns)`
  )
}

console.log(`node ${process.version}, ${iterations} iterations for stream_event kinds`)
for (
  const name of [
    "stream_event/content_block_delta/text_delta",
    "stream_event/content_block_delta/input_json_delta",
    "stream_event/message_start",
    "stream_event/content_block_start",
    "stream_event/content_block_stop",
    "stream_event/message_delta",
    "stream_event/message_stop",
    "assistant",
    "user",
    "result",
    "system/init",
    "system/status",
    "control_request"
  ]
) report(name)
if (sink < 0) console.log(sink)
