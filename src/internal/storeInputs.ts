/**
 * What every session store checks of its inputs before it stores anything, each the caller's
 * mistake and refused as `InvalidInput`, never a defect: an entry JSON cannot hold (a BigInt, a
 * cycle, a `toJSON` that throws), with nothing of its batch stored; and a key whose `subpath` is
 * the empty string (the contract: absent for the main transcript, else a name), which a store
 * could take for the main transcript.
 */
import * as Effect from "effect/Effect"
import * as ClaudeError from "../ClaudeError.ts"
import type { SessionKey } from "../SessionStore.ts"
import { describeError } from "./describeCause.ts"

/** Each entry's JSON text, in order, or `InvalidInput` naming the first that has none. */
export const entryTexts = (store: string, entries: ReadonlyArray<unknown>): Effect.Effect<Array<string>, ClaudeError.ClaudeError> =>
  Effect.suspend(() => {
    const texts: Array<string> = []
    for (let i = 0; i < entries.length; i++) {
      let text: string | undefined
      try {
        text = JSON.stringify(entries[i])
      } catch (error) {
        return Effect.fail(invalid(store, i, describeError(error)))
      }
      if (text === undefined) return Effect.fail(invalid(store, i, "it is not a JSON value"))
      texts.push(text)
    }
    return Effect.succeed(texts)
  })

const invalid = (store: string, index: number, why: string) =>
  ClaudeError.make(new ClaudeError.InvalidInput({
    description: `${store}: entry ${index} of the batch cannot be written as JSON (${why}); nothing of the batch was stored`
  }))

/** `InvalidInput` for a key whose `subpath` is the empty string. */
export const subpathGiven = (store: string, key: Partial<SessionKey>): Effect.Effect<void, ClaudeError.ClaudeError> =>
  key.subpath === ""
    ? Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({
      description: `${store}: ${JSON.stringify(key)} is not a session key: its subpath is empty (leave it out for the main transcript)`
    })))
    : Effect.void
