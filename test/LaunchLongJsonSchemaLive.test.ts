/**
 * A JSON Schema too long for one argument: Linux takes at most 128 KiB in one (`MAX_ARG_STRLEN`),
 * and `--json-schema <json>` made the spawn fail (`SpawnFailed`, `E2BIG`), no session at all. The
 * CLI reads the schema from `initialize.jsonSchema` too (2.1.200 and 2.1.332, the versions with
 * structured output), so such a schema goes there only.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Launch from "../src/Launch.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

const noWiring: Launch.Wiring = { mcpServers: [], permissionPromptTool: false }

/** An object schema whose one property's description is `length` characters long. */
const schemaOf = (length: number) => ({
  type: "object",
  properties: { answer: { type: "string", description: `The answer. ${"d".repeat(length)}` } },
  required: ["answer"]
})

describe("a JSON Schema longer than one argument may be", () => {
  it("a short one stays on the command line; one over 128 KiB goes in initialize only", () => {
    const short = Launch.buildCommand({ jsonSchema: schemaOf(10) }, noWiring).args
    assert.include(short, "--json-schema")
    const long = Launch.buildCommand({ jsonSchema: schemaOf(140_000) }, noWiring).args
    assert.notInclude(long, "--json-schema")
    assert.isTrue(long.every((arg) => arg.length < 128 * 1024))
  })

  it.live("a 140 KB schema: the session runs, the model's StructuredOutput tool carries it, the value comes back", () =>
    Effect.scoped(Effect.gen(function*() {
      const jsonSchema = schemaOf(140_000)
      const offline = yield* Offline.open(
        [FakeModel.toolUse("StructuredOutput", { answer: "42" }), FakeModel.text("done")],
        { executable: cliPath, jsonSchema }
      )
      const result = yield* offline.session.run("What is the answer?")
      assert.deepStrictEqual((result as { readonly structured_output?: unknown }).structured_output, { answer: "42" })
      const [request] = yield* offline.model.messageRequests
      const tool = (request!.body as { readonly tools: ReadonlyArray<{ readonly name: string }> }).tools
        .find((tool) => tool.name === "StructuredOutput")
      assert.include(JSON.stringify(tool), "d".repeat(140_000))
    })).pipe(Effect.provide(processLayer)), 60_000)
})
