/**
 * An elicitation's `format` (`email`, `uri`, `date`, `date-time`) is checked as the MCP SDK's
 * validator checks it (Ajv with `ajv-formats`' full formats): content it would refuse is
 * declined here, never sent as accepted (the server then failed the tool call with
 * `InvalidParams`). It was not checked before (found by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Elicitation from "../src/Elicitation.ts"

const requestFor = (format: string) => ({
  mcp_server_name: "signup",
  requested_schema: { type: "object", properties: { value: { type: "string", format } }, required: ["value"] }
})

const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, ReadonlyArray<string>]> = [
  ["email", ["ada@example.com", "first.last+tag@sub.example.org"], ["not an email", "a@b", "a@@example.com"]],
  ["uri", ["https://example.com/a?b=c#d", "mailto:ada@example.com", "urn:isbn:0451450523"], ["example.com", "/relative/path", "http://exa mple.com"]],
  ["date", ["2024-02-29", "1999-12-31"], ["2023-02-29", "2024-13-01", "24-01-01", "2024-01-01T00:00:00Z"]],
  ["date-time", ["2024-02-29T12:30:00Z", "2024-02-29 12:30:00.5+02:00", "2016-12-31T23:59:60Z"], ["2024-02-29T12:30:00", "2024-02-29", "2024-02-29T25:00:00Z"]]
]

describe("an elicitation's string formats", () => {
  for (const [format, valid, invalid] of cases) {
    it.effect(`${format}: what the server accepts is accepted, the rest refused (declined), never sent`, () =>
      Effect.gen(function*() {
        for (const value of valid) {
          const exit = yield* Effect.exit(Elicitation.decodeContent(requestFor(format), { value }))
          assert.isTrue(Exit.isSuccess(exit), `${format} ${JSON.stringify(value)} was refused`)
        }
        for (const value of invalid) {
          const exit = yield* Effect.exit(Elicitation.decodeContent(requestFor(format), { value }))
          assert.isTrue(Exit.isFailure(exit), `${format} ${JSON.stringify(value)} would be sent as accepted`)
        }
      }))
  }

  it.effect("a format the MCP specification does not name is not checked", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Elicitation.decodeContent(requestFor("hostname"), { value: "not a host name!" }))
      assert.isTrue(Exit.isSuccess(exit))
    }))
})
