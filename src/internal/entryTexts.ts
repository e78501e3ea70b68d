/**
 * The JSON text of the entries a session store is given, checked before anything is stored: an
 * entry JSON cannot hold (a BigInt, a cycle, a `toJSON` that throws) is the caller's mistake,
 * refused as `InvalidInput` with nothing of its batch stored, never a defect.
 */
import * as Effect from "effect/Effect"
import * as ClaudeError from "../ClaudeError.ts"

/** Each entry's JSON text, in order, or `InvalidInput` naming the first that has none. */
export const entryTexts = (store: string, entries: ReadonlyArray<unknown>): Effect.Effect<Array<string>, ClaudeError.ClaudeError> =>
  Effect.suspend(() => {
    const texts: Array<string> = []
    for (let i = 0; i < entries.length; i++) {
      let text: string | undefined
      try {
        text = JSON.stringify(entries[i])
      } catch (error) {
        return Effect.fail(invalid(store, i, error instanceof Error ? error.message : String(error)))
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
