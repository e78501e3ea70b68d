/**
 * CLI → host control requests. Each runs in its own fiber of a `FiberMap` keyed by `request_id`,
 * so a `control_cancel_request` interrupts exactly the handler it names.
 *
 * Invariants: every request the CLI sends gets exactly one control_response, except one that the
 * CLI cancelled (it waits for none); a handler's failure or defect becomes an error response and
 * never reaches the reader, so one bad handler cannot end the session.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberMap from "effect/FiberMap"
import type * as Scope from "effect/Scope"
import * as ClaudeError from "../ClaudeError.ts"
import { describeCause } from "./describeCause.ts"

/** A handler for one request subtype: the request body in, the success response body out. */
export type Handler = (request: Record<string, unknown>, requestId: string) => Effect.Effect<unknown, ClaudeError.ClaudeError>

export interface Incoming {
  readonly dispatch: (requestId: string, request: Record<string, unknown>) => Effect.Effect<void>
  readonly cancel: (requestId: string) => Effect.Effect<void>
  readonly running: Effect.Effect<number>
}

const errorText = (cause: Cause.Cause<ClaudeError.ClaudeError>): string => {
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure !== undefined) return failure.error.message
  const defect = cause.reasons.find(Cause.isDieReason)
  if (defect !== undefined) return `The handler died: ${describeCause(cause)}`
  return "The handler was interrupted"
}

export const make = Effect.fnUntraced(function*(options: {
  readonly handlers: Readonly<Record<string, Handler>>
  readonly send: (message: unknown) => Effect.Effect<void, ClaudeError.ClaudeError>
}): Effect.fn.Return<Incoming, never, Scope.Scope> {
  const inflight = yield* FiberMap.make<string>()

  const answer = (requestId: string, exit: Exit.Exit<unknown, ClaudeError.ClaudeError>) =>
    options.send({
      type: "control_response",
      response: Exit.isSuccess(exit)
        ? { subtype: "success", request_id: requestId, response: exit.value ?? {} }
        : { subtype: "error", request_id: requestId, error: errorText(exit.cause) }
    }).pipe(Effect.ignore)

  const run = (requestId: string, request: Record<string, unknown>): Effect.Effect<unknown, ClaudeError.ClaudeError> => {
    const subtype = typeof request.subtype === "string" ? request.subtype : String(request.subtype)
    const handler = options.handlers[subtype]
    if (handler === undefined) {
      const description = `Unsupported control request subtype: ${subtype}`
      return Effect.logWarning(description).pipe(
        Effect.andThen(Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({ description }))))
      )
    }
    return Effect.suspend(() => handler(request, requestId))
  }

  const dispatch = (requestId: string, request: Record<string, unknown>) =>
    FiberMap.run(
      inflight,
      requestId,
      run(requestId, request).pipe(
        Effect.exit,
        // Interruption of this fiber (a control_cancel_request) skips the answer: the CLI has
        // stopped waiting for it.
        Effect.flatMap((exit) => {
          if (Exit.isSuccess(exit)) return answer(requestId, exit)
          if (Cause.hasInterruptsOnly(exit.cause)) return Effect.void
          // The services (Hooks, Permissions, McpServers) log their handlers' failures with context.
          return Effect.logDebug(`control request ${String(request.subtype)} failed`, exit.cause).pipe(
            Effect.andThen(answer(requestId, exit))
          )
        })
      ),
      { onlyIfMissing: true }
    ).pipe(Effect.asVoid)

  return {
    dispatch,
    cancel: (requestId) => FiberMap.remove(inflight, requestId),
    running: FiberMap.size(inflight)
  }
})
