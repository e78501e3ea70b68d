/**
 * The session's own options, those `Claude.open` reads itself rather than passing to the CLI (the
 * line cap, the grace and the timeouts), checked before anything starts: a bad one is an
 * `InvalidInput` that names it. Unchecked, `NaN` capped no line, a duration Effect cannot read
 * was a defect, and `NaN` or a negative duration became zero (every request timed out at once,
 * the CLI was killed at once).
 */
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"

/** The options checked here, as `Claude.open` takes them. */
export interface Checked {
  readonly maxLineBytes?: number | undefined
  readonly closeGrace?: Duration.Input | undefined
  readonly controlTimeout?: Duration.Input | undefined
  readonly initializeTimeout?: Duration.Input | undefined
  readonly interruptTimeout?: Duration.Input | undefined
  readonly stallTimeout?: Duration.Input | undefined
  readonly turnTimeout?: Duration.Input | undefined
}

/** Deadlines: zero would end what they bound before it starts. */
const timeouts = ["controlTimeout", "initializeTimeout", "interruptTimeout", "stallTimeout", "turnTimeout"] as const

const shown = (input: unknown): string => typeof input === "string" ? JSON.stringify(input) : String(input)

/** A duration Effect reads, not `NaN` (which it reads as zero) and not negative; else `undefined`. */
const durationOf = (input: Duration.Input): Duration.Duration | undefined => {
  if (typeof input === "number" && Number.isNaN(input)) return undefined
  const duration = Option.getOrUndefined(Duration.fromInput(input))
  return duration === undefined || Duration.isNegative(duration) ? undefined : duration
}

/** What is wrong with `options`, one sentence each; empty when nothing is. */
export const problemsOf = (options: Checked): Array<string> => {
  const problems: Array<string> = []
  const cap = options.maxLineBytes
  if (cap !== undefined && !(Number.isSafeInteger(cap) && cap > 0)) {
    problems.push(`maxLineBytes must be a positive integer of bytes (got ${shown(cap)})`)
  }
  if (options.closeGrace !== undefined && durationOf(options.closeGrace) === undefined) {
    problems.push(`closeGrace must be a duration of zero or more (got ${shown(options.closeGrace)})`)
  }
  for (const name of timeouts) {
    const input = options[name]
    if (input === undefined) continue
    const duration = durationOf(input)
    if (duration === undefined || Duration.isZero(duration)) {
      problems.push(`${name} must be a duration of more than zero (got ${shown(input)})`)
    }
  }
  return problems
}
