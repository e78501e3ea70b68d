/**
 * The account e-mail (and the session's other secrets) in the spans' exits, with `TraceContent`
 * off and on (each test failed before its fix): spans ended with their success value, which a
 * tracer recording a span's exit got whole. The `initialize` control request's span ended with
 * the CLI's answer (the account e-mail in it), `get_settings`'s with the environment the CLI
 * echoed (a `Redacted` value), `Turn.finalText`'s and the turn's with the model's text as it is,
 * the session's with what the program's scope returned, and the handlers' (`Hooks.dispatch`,
 * `Permissions.decide`, `McpServers.handle` and `callTool`, `Elicitation.respond`,
 * `UserDialogs.show`) with their answers: the tool input they let through, what the user typed.
 * Now no span of a session ends with a success value (`internal/spanExits.ts`): what a trace
 * shows of a success is in its attributes, redacted.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Crypto from "node:crypto"
import * as Util from "node:util"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Tracer from "effect/Tracer"
import * as Claude from "../src/Claude.ts"
import * as CliVersion from "../src/CliVersion.ts"
import * as Elicitation from "../src/Elicitation.ts"
import * as Hooks from "../src/Hooks.ts"
import * as Launch from "../src/Launch.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Tracing from "../src/Tracing.ts"
import * as Turn from "../src/Turn.ts"
import * as UserDialogs from "../src/UserDialogs.ts"
import { attributeTexts, collectSpans, named } from "./support/spans.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

/**
 * Handlers whose answers hold what the CLI sent or what the user typed: a hook and a permission
 * that allow the tool input as it is, an MCP tool echoing it, an elicitation and a dialog the
 * user answers with the e-mail and the token.
 */
const handlers = (email: string, token: string) =>
  Layer.mergeAll(
    McpServers.layer(McpServers.server("byre", {
      tools: [McpServers.tool({
        name: "echo",
        description: "Echo the text.",
        input: Schema.Struct({ text: Schema.String }),
        handler: ({ text }) => Effect.succeed(`echo: ${text}`)
      })]
    })),
    Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash" }, (input) => Effect.succeed(Hooks.allowWith(input.tool_input)))),
    Permissions.layer((request) => Effect.succeed(Permissions.allow({ updatedInput: request.input }))),
    Elicitation.layer(() => Effect.succeed(Elicitation.accept({ email }))),
    UserDialogs.layer(["sign_in_prompt"], () => Effect.succeed(UserDialogs.completed(`signed in with ${token}`)))
  )

/** Every form a tracer could record of a span's exit: printed, as JSON, its failures pretty. */
const exitTexts = (span: Tracer.NativeSpan): Array<string> => {
  if (span.status._tag !== "Ended") return []
  const exit = span.status.exit
  const texts = [Util.inspect(exit, { depth: null, showHidden: true }), String(exit)]
  try {
    texts.push(JSON.stringify(exit) ?? "")
  } catch {
    // A value JSON cannot hold (a cycle): the printed forms above cover it.
  }
  if (Exit.isSuccess(exit)) {
    texts.push(Util.inspect(exit.value, { depth: null, showHidden: true }))
  } else {
    texts.push(Cause.pretty(exit.cause))
    for (const error of Cause.prettyErrors(exit.cause)) texts.push(error.message, error.stack ?? "")
  }
  return texts
}

/** A span's events, as text. */
const eventTexts = (span: Tracer.NativeSpan): Array<string> =>
  span.events.map(([name, , attributes]) => `${name} ${Util.inspect(attributes, { depth: null })}`)

describe("span exits", () => {
  for (const content of [false, true]) {
    it.live(`no span holds the account e-mail or an environment secret the CLI echoed (TraceContent ${content ? "on" : "off"})`, () =>
      Effect.gen(function*() {
        const email = `someone-${Crypto.randomBytes(6).toString("hex")}@example.com`
        const envSecret = `env-secret-${Crypto.randomBytes(12).toString("hex")}`
        const collected = collectSpans()
        const seen = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* Claude.open({ env: { MY_TOKEN: Redacted.make(envSecret) }, closeGrace: "1 second" })
          const initialized = yield* session.initializeResult
          const settings = yield* session.settings()
          const text = yield* Turn.finalText(session.turn({ text: "who am I?" }))
          const run = yield* session.run("and again?")
          return { email: initialized.account.email, settings: JSON.stringify(settings), text, result: run.result }
        })).pipe(
          Effect.provide(FakeCli.layer((cli) =>
            Effect.andThen(
              FakeCli.answerInitialize(cli, {
                account: { email, tokenSource: "claude.ai", apiProvider: "firstParty", subscriptionType: "max" }
              }),
              FakeCli.conversation({
                sessionId: SESSION,
                // The CLI's settings hold the environment it was given.
                onControl: (request, cli) =>
                  cli.emit(FakeCli.success(request, {
                    effective: { env: { MY_TOKEN: envSecret }, owner: email },
                    sources: [{ source: "userSettings", settings: { env: { MY_TOKEN: envSecret } } }]
                  })),
                // The model's tool input names the e-mail and the token: the host's handlers see it.
                onUser: (_text, _index, cli, message) =>
                  Effect.gen(function*() {
                    const command = `git config user.email ${email} && export MY_TOKEN=${envSecret}`
                    yield* FakeCli.callHook(cli, "PreToolUse", { tool_name: "Bash", tool_input: { command }, tool_use_id: "toolu_1" })
                    yield* FakeCli.askPermission(cli, "Bash", { command }, { toolUseId: "toolu_1" })
                    yield* FakeCli.callMcpTool(cli, "byre", "echo", { text: command })
                    yield* cli.request({
                      subtype: "elicitation",
                      mcp_server_name: "byre",
                      message: "Who are you?",
                      mode: "form",
                      requested_schema: { type: "object", properties: { email: { type: "string" } }, required: ["email"] }
                    })
                    yield* cli.request({
                      subtype: "request_user_dialog",
                      dialog_kind: "sign_in_prompt",
                      payload: {},
                      tool_use_id: "toolu_1"
                    })
                    for (
                      const line of FakeCli.textTurn({
                        sessionId: SESSION,
                        text: `You are ${email}; your token is ${envSecret}`,
                        userMessageUuid: message.uuid as string
                      })
                    ) yield* cli.emit(line)
                  })
              })(cli)
            )
          )),
          Effect.provide(handlers(email, envSecret)),
          Effect.provideService(Tracing.TraceContent, content),
          collected.provide,
          Effect.provide(Logger.layer([]))
        )
        // The program gets every value as the CLI wrote it.
        assert.strictEqual(seen.email, email)
        assert.include(seen.settings, envSecret)
        assert.include(seen.text, email)
        assert.include(String(seen.result), email)

        // The spans this is about were made, and ended successfully.
        const initialize = named(collected.spans, "claude.control_request initialize")
        assert.strictEqual(initialize.length, 1)
        assert.strictEqual(initialize[0]!.status._tag === "Ended" && initialize[0]!.status.exit._tag, "Success")
        assert.strictEqual(named(collected.spans, "claude.control_request get_settings").length, 1)
        assert.strictEqual(named(collected.spans, "Claude.open").length, 1)
        assert.strictEqual(named(collected.spans, "Turn.finalText").length, 1)
        assert.strictEqual(named(collected.spans, "claude.turn").length, 2)
        for (const name of ["Hooks.dispatch", "Permissions.decide", "McpServers.handle", "McpServers.callTool", "Elicitation.respond", "UserDialogs.show"]) {
          assert.strictEqual(named(collected.spans, name).length, 2, name)
        }
        for (const span of collected.spans) assert.strictEqual(span.status._tag, "Ended", span.name)

        // No span's exit, attribute or event holds either secret.
        // The fake CLI's own spans (`FakeCli.callHook`, …) stand for the CLI: they are not the session's.
        const holding = collected.spans.filter((span) => !span.name.startsWith("FakeCli.")).flatMap((span) => {
          const where = [
            ...exitTexts(span).map((text) => ["exit", text] as const),
            ...eventTexts(span).map((text) => ["event", text] as const),
            ...attributeTexts([span]).map((text) => ["attribute", text] as const)
          ]
          return where.filter(([, text]) => text.includes(email) || text.includes(envSecret)).map(([kind]) =>
            `${span.name}: ${kind}`
          )
        })
        assert.deepStrictEqual([...new Set(holding)], [])
        // With `TraceContent` on, the model's text is written, its secrets replaced.
        const outputs = attributeTexts(named(collected.spans, "claude.turn")).filter((text) =>
          text.includes("gen_ai.output.messages")
        )
        if (content) {
          assert.strictEqual(outputs.length, 2)
          for (const text of outputs) assert.include(text, "You are [redacted]; your token is [redacted]")
        } else {
          assert.strictEqual(outputs.length, 0)
        }
      }))
  }

  it.effect("the executable's lookup and the version check end with no value (the path is under the user's home)", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      yield* Effect.gen(function*() {
        assert.strictEqual(yield* Launch.findExecutable(process.execPath), process.execPath)
        const version = yield* CliVersion.verify({ claude_code_version: CliVersion.pinned }, { env: {}, closeGrace: Duration.seconds(1) }, { pid: undefined })
        assert.strictEqual(version, CliVersion.pinned)
      }).pipe(
        Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId: "0f7d2c3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e" }))),
        collected.provide
      )
      for (const name of ["Launch.findExecutable", "CliVersion.verify", "CliVersion.resolve"]) {
        const [span] = named(collected.spans, name)
        assert.isTrue(span !== undefined && span.status._tag === "Ended", name)
        const exit = span!.status._tag === "Ended" ? span!.status.exit : undefined
        assert.isTrue(exit !== undefined && Exit.isSuccess(exit) && exit.value === undefined, `${name} ended with a value`)
      }
    }))
})
