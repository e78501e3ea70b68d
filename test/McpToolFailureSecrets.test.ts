/**
 * An in-process MCP tool's failure text carrying a session secret (the API key, a `Redacted` env
 * value), found by a reviewing helper (failing before): a handler that died logged it in clear at
 * ERROR, and the tool result sent to the CLI (which the model reads, and the CLI keeps in its
 * session file and sends to the API) quoted it, for a defect or a typed failure alike. The
 * permission, hook, elicitation and dialog handlers had been fixed for the same; MCP tools were
 * left out. Each still says what failed, with the secret replaced by `[redacted]`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Claude from "../src/Claude.ts"
import * as McpServers from "../src/McpServers.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { makeSecrets, occurrences, withCapturedLogs } from "./support/secrets.ts"

describe("secrets in MCP tool failures", () => {
  it.live("a tool that dies or fails quoting the API key or a Redacted env value: not in the logs nor in the result the CLI gets", () =>
    Effect.gen(function*() {
      const { apiKey, redactedEnv } = makeSecrets()
      const logs: Array<string> = []
      const results: Array<Exit.Exit<McpServers.ToolResult, unknown>> = []
      const go = yield* Deferred.make<void>()
      const deploy = McpServers.tool({
        name: "deploy",
        description: "Deploys.",
        input: Schema.Struct({ how: Schema.Literals(["die", "fail"]) }),
        handler: ({ how }) =>
          how === "die"
            ? Effect.die(new Error(`the gateway refused x-api-key ${apiKey}`))
            : Effect.fail(new Error(`the vault refused token ${redactedEnv}`))
      })
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* Deferred.await(go)
          results.push(yield* Effect.exit(FakeCli.callMcpTool(cli, "ops", "deploy", { how: "die" })))
          results.push(yield* Effect.exit(FakeCli.callMcpTool(cli, "ops", "deploy", { how: "fail" })))
          return yield* Effect.exit(cli.next).pipe(Effect.as(0))
        })
      )
      yield* Effect.gen(function*() {
        yield* Claude.open({
          apiKey: Redacted.make(apiKey),
          env: { DEPLOY_TOKEN: Redacted.make(redactedEnv) },
          closeGrace: "300 millis"
        })
        yield* Deferred.succeed(go, undefined)
        yield* Effect.sleep("300 millis")
      }).pipe(
        Effect.scoped,
        Effect.provide(McpServers.layer(McpServers.server("ops", { tools: [deploy] }))),
        Effect.provide(cli),
        withCapturedLogs(logs)
      )
      assert.isTrue(logs.some((l) => l.includes("the gateway refused x-api-key")), "the defect is logged (control)")
      assert.deepStrictEqual(occurrences(logs, apiKey), [], "the API key in a log line")
      const texts = results.map((exit) => {
        assert.isTrue(Exit.isSuccess(exit), `the CLI got no result: ${String(exit)}`)
        if (Exit.isFailure(exit)) return ""
        assert.isTrue(exit.value.isError)
        return exit.value.content.map((block) => block.type === "text" ? block.text : "").join("")
      })
      assert.include(texts[0], "the gateway refused x-api-key [redacted]")
      assert.include(texts[1], "the vault refused token [redacted]")
      assert.deepStrictEqual(occurrences(texts, apiKey), [], "the API key in a tool result")
      assert.deepStrictEqual(occurrences(texts, redactedEnv), [], "the env value in a tool result")
    }))
})
