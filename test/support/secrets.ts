/**
 * What the secrets tests share (unit and live tiers): fresh secrets, captured logs, and every
 * printed form of an error or exit, to search for a secret in.
 */
import * as Crypto from "node:crypto"
import * as Util from "node:util"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import * as ClaudeError from "../../src/ClaudeError.ts"

/** Fresh secrets per run, so no fixture text can contain them by accident. */
export const makeSecrets = () => ({
  apiKey: `sk-secret-${Crypto.randomBytes(12).toString("hex")}`,
  marked: `marked-secret-${Crypto.randomBytes(12).toString("hex")}`,
  redactedEnv: `redacted-env-${Crypto.randomBytes(12).toString("hex")}`,
  github: `ghp_${Crypto.randomBytes(12).toString("hex")}`
})

/** Collects every log line at every level: the formatted line and the cause, pretty. */
export const capturingLogger = (into: Array<string>) =>
  Logger.make((options) => {
    into.push(Logger.formatSimple.log(options))
    into.push(Util.inspect(options.message, { depth: null }))
    if (options.cause.reasons.length > 0) into.push(Cause.pretty(options.cause))
  })

export const withCapturedLogs = (into: Array<string>) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.provide(Logger.layer([capturingLogger(into)])),
    Effect.provideService(References.MinimumLogLevel, "All")
  )

/** Every printed form of an error. */
export const errorTexts = (error: unknown): Array<string> => {
  const texts = [String(error), Util.inspect(error, { depth: null }), JSON.stringify(error) ?? ""]
  if (error instanceof Error) texts.push(error.message, error.stack ?? "")
  if (ClaudeError.isClaudeError(error)) texts.push(error.reason.message, JSON.stringify(error.reason))
  return texts
}

export const exitTexts = (exit: Exit.Exit<unknown, unknown>): Array<string> => {
  if (Exit.isSuccess(exit)) return []
  const texts = [Cause.pretty(exit.cause), String(exit), Util.inspect(exit, { depth: null })]
  for (const reason of exit.cause.reasons) {
    if (Cause.isFailReason(reason)) texts.push(...errorTexts(reason.error))
    if (Cause.isDieReason(reason)) texts.push(...errorTexts(reason.defect))
  }
  return texts
}

export const occurrences = (texts: ReadonlyArray<string>, secret: string): Array<string> =>
  texts.filter((text) => text.includes(secret)).map((text) => text.slice(0, 300))

export const failureTag = (exit: Exit.Exit<unknown, ClaudeError.ClaudeError>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  return exit.cause.reasons.find(Cause.isFailReason)?.error.reason._tag
}
