/**
 * Content that breaks an elicitation's `requested_schema` in ways the content schema did not see
 * was sent as `accept` (the server's validator then refuses it, and its tool fails instead of
 * hearing `decline`): a `required` key that `properties` does not describe was not required, and
 * an option list with no string value (`"enum": []`) took any string (found by a reviewing helper).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Elicitation from "../src/Elicitation.ts"

const request = (requestedSchema: Record<string, unknown>) => ({
  subtype: "elicitation",
  mcp_server_name: "forms",
  message: "Fill in the form",
  mode: "form",
  requested_schema: { type: "object", ...requestedSchema }
})

const answer = (content: Record<string, Elicitation.ContentValue>, requestedSchema: Record<string, unknown>) =>
  Effect.gen(function*() {
    const service = yield* Effect.provide(
      Effect.service(Elicitation.Elicitation),
      Elicitation.layer(() => Effect.succeed(Elicitation.accept(content)))
    )
    return yield* Elicitation.bind(service).respond(request(requestedSchema)).pipe(Effect.provide(Logger.layer([])))
  })

const refused = (requestedSchema: Record<string, unknown>, content: unknown) =>
  Effect.map(
    Effect.exit(Elicitation.decodeContent({ mcp_server_name: "forms", requested_schema: requestedSchema }, content)),
    (exit) => assert.isTrue(Exit.isFailure(exit), `accepted: ${JSON.stringify(Exit.isSuccess(exit) ? exit.value : undefined)}`)
  )

describe("elicitation content the requested schema refuses", () => {
  it.effect("a required key that properties do not describe is still required: without it, declined", () =>
    Effect.gen(function*() {
      const schema = { properties: { name: { type: "string" } }, required: ["name", "token"] }
      assert.deepStrictEqual(yield* answer({ name: "a" }, schema), { action: "decline" })
      yield* refused(schema, { name: "a" })
      // With it (any content value, as JSON Schema has it), the content is accepted as given.
      assert.deepStrictEqual(yield* answer({ name: "a", token: "t" }, schema), {
        action: "accept",
        content: { name: "a", token: "t" }
      })
    }))

  it.effect("an option list without a string value allows no string: declined", () =>
    Effect.gen(function*() {
      const single = { properties: { env: { type: "string", enum: [] } }, required: ["env"] }
      assert.deepStrictEqual(yield* answer({ env: "anything" }, single), { action: "decline" })
      yield* refused({ properties: { env: { type: "string", enum: [1, 2] } } }, { env: "1" })
      yield* refused({ properties: { tags: { type: "array", items: { type: "string", enum: [] } } } }, { tags: ["x"] })
    }))
})
