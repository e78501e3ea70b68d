/**
 * The session's own options, those `Claude.open` reads itself rather than passing to the CLI (the
 * line cap, the grace, the timeouts and the two choices), checked before anything starts, and a
 * control request's own deadline before it is sent: a bad one is an `InvalidInput` that names it.
 * Unchecked, a `NaN` cap capped nothing, a duration Effect cannot read was a defect, and `NaN`, a
 * negative duration or an object without a known unit (`{}`, `{ second: 30 }`) acted as zero:
 * every request timed out at once, the CLI was killed at once. A misspelt `errorResults` read as
 * `"return"`: failed turns came back as results. A `transcript` that is no recorder (the Effect
 * `Transcript.toFile` returns) died at the first line.
 */
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as CliVersion from "../CliVersion.ts"
import { isRecord } from "./json.ts"

/**
 * The options checked here, as `Claude.open` takes them (its `SessionOptions`, which this module
 * may not import: internal modules stay below the facade).
 */
export type Checked =
  & { readonly maxLineBytes?: number | undefined }
  & { readonly [Name in "closeGrace" | (typeof deadlines)[number][0]]?: Duration.Input | undefined }
  & {
    readonly errorResults?: unknown
    readonly verbatimPrompts?: unknown
    readonly cliVersionPolicy?: { readonly onUnsupported?: unknown; readonly range?: CliVersion.Range | undefined } | undefined
    readonly transcript?: unknown
  }

/**
 * The deadlines, each positive (zero would end what it bounds before it starts), with what its
 * message adds: the two that are off by default can be left unset instead.
 */
const deadlines = [
  ["controlTimeout", ""],
  ["initializeTimeout", ""],
  ["interruptTimeout", ""],
  ["stallTimeout", ", or unset for none"],
  ["turnTimeout", ", or unset for none"]
] as const

/** The units of Effect's duration objects (`{ seconds: 30 }`). */
const units = new Set(["weeks", "days", "hours", "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds"])

const isFiniteNumber = (u: unknown): boolean => typeof u === "number" && Number.isFinite(u)

/** `input` as the program wrote it: `"5 secs"`, `5n`, `[NaN, 0]`, `{ second: 30 }`. */
const shown = (input: unknown): string => {
  if (typeof input === "string") return JSON.stringify(input)
  if (typeof input === "bigint") return `${input}n`
  if (Array.isArray(input)) return `[${input.map(shown).join(", ")}]`
  if (typeof input === "object" && input !== null && !Duration.isDuration(input)) {
    const entries = Object.entries(input).map(([key, value]) => `${key}: ${shown(value)}`)
    return entries.length === 0 ? "{}" : `{ ${entries.join(", ")} }`
  }
  return String(input)
}

/**
 * The duration `input` says, when it says one: Effect reads `NaN`, an empty object, an object
 * whose keys are not units and a pair holding `NaN` as zero, and those are refused here.
 */
const durationOf = (input: Duration.Input): Duration.Duration | undefined => {
  if (typeof input === "number" && Number.isNaN(input)) return undefined
  if (Array.isArray(input) && !(input.length === 2 && input.every(isFiniteNumber))) return undefined
  if (typeof input === "object" && input !== null && !Array.isArray(input) && !Duration.isDuration(input)) {
    const entries = Object.entries(input)
    if (entries.length === 0 || !entries.every(([unit, value]) => units.has(unit) && isFiniteNumber(value))) return undefined
  }
  return Option.getOrUndefined(Duration.fromInput(input))
}

/** What is wrong with `options`, a clause each; empty when nothing is. */
export const problemsOf = (options: Checked): Array<string> => {
  const problems: Array<string> = []
  const cap = options.maxLineBytes
  // Infinity is taken: a cap over V8's longest string is lowered to it (`Framing.maxLineBytesLimit`).
  if (cap !== undefined && !(cap > 0 && (Number.isSafeInteger(cap) || cap === Number.POSITIVE_INFINITY))) {
    problems.push(`maxLineBytes must be a positive integer of bytes, or Infinity (got ${shown(cap)})`)
  }
  const grace = options.closeGrace === undefined ? undefined : durationOf(options.closeGrace)
  // Finite: at its end the CLI is killed, so that no process outlives the session.
  if (options.closeGrace !== undefined && (grace === undefined || Duration.isNegative(grace) || !Duration.isFinite(grace))) {
    problems.push(`closeGrace must be a finite duration of zero or more (got ${shown(options.closeGrace)})`)
  }
  for (const [name, orUnset] of deadlines) {
    const input = options[name]
    const problem = input === undefined ? undefined : deadlineProblem(name, input, orUnset)
    if (problem !== undefined) problems.push(problem)
  }
  const { errorResults } = options
  if (errorResults !== undefined && errorResults !== "fail" && errorResults !== "return") {
    problems.push(`errorResults must be "fail" or "return" (got ${shown(errorResults)})`)
  }
  const { verbatimPrompts } = options
  if (verbatimPrompts !== undefined && typeof verbatimPrompts !== "boolean") {
    problems.push(`verbatimPrompts must be a boolean (got ${shown(verbatimPrompts)})`)
  }
  // `Transcript.toFile(path)` given as it is (a scoped Effect) died at the first line recorded.
  const { transcript } = options
  if (transcript !== undefined && !(isRecord(transcript) && typeof transcript.record === "function")) {
    problems.push(
      "transcript must be a recorder: the value of `yield* Transcript.toFile(path)` (or `Transcript.toSink`), not the Effect that makes it"
    )
  }
  const onUnsupported = options.cliVersionPolicy?.onUnsupported
  if (onUnsupported !== undefined && onUnsupported !== "fail" && onUnsupported !== "warn") {
    problems.push(`cliVersionPolicy.onUnsupported must be "fail" or "warn" (got ${shown(onUnsupported)})`)
  }
  const range: unknown = options.cliVersionPolicy?.range
  const rangeProblem = range === undefined
    ? undefined
    : typeof range !== "object" || range === null
    ? `it must be { floor, below } (got ${shown(range)})`
    : CliVersion.rangeProblem(range as CliVersion.Range)
  if (rangeProblem !== undefined) problems.push(`cliVersionPolicy.range: ${rangeProblem}`)
  return problems
}

/**
 * What is wrong with the deadline `input` given as `name`, if anything: also for the deadline
 * of one control request (`RequestOptions.timeout`).
 */
export const deadlineProblem = (name: string, input: Duration.Input, orUnset = ""): string | undefined => {
  const duration = durationOf(input)
  return duration !== undefined && Duration.isPositive(duration)
    ? undefined
    : `${name} must be a positive duration${orUnset} (got ${shown(input)})`
}
