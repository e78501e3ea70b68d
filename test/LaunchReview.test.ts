/**
 * Launch options where a reviewing helper found `validate` wanting (each test failed before its
 * fix): `settings`, `jsonSchema` and `agents` holding what JSON does not write as given (a Set
 * became `{}`, a RegExp `{}`, Infinity `null`) were sent rewritten; a NUL byte was looked for in
 * plain-string env values only (a NUL in `apiKey` or a `Redacted` env value passed, and the
 * spawn failed), and was reported under the variable or argument it ended in (`env.PWD` for
 * `cwd`), not under the option the program set. `defaultSecretEnv` lacked credentials the CLI
 * reads. A stderr line over 16 Ki characters was logged in pieces redacted one by one, so a
 * secret cut there was logged in two clear halves (the live test is test/SecretsInStderrLive.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import { MAX_LINE_CHARS, redactLines } from "../src/internal/stderrLines.ts"
import * as Launch from "../src/Launch.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { withCapturedLogs } from "./support/secrets.ts"
import { invalidMessage } from "./support/outcomes.ts"

const noWiring: Launch.Wiring = { mcpServers: [], permissionPromptTool: false }

/** The message of the `InvalidInput` that `options` fail `validate` with. */
const invalidOf = (options: Launch.LaunchOptions) => invalidMessage(Launch.validate(options))

describe("validate: JSON options are sent as given, or refused", () => {
  it.effect("a Set in settings is InvalidInput naming settings.permissions.allow", () =>
    Effect.gen(function*() {
      const settings = { permissions: { allow: new Set(["x"]) } } as unknown as Launch.Settings
      const message = yield* invalidOf({ settings })
      assert.include(message, "settings.permissions.allow")
      assert.include(message, "a Set")
    }))

  it.effect("a RegExp pattern or an Infinity maximum in jsonSchema is InvalidInput naming its path", () =>
    Effect.gen(function*() {
      const pattern = yield* invalidOf({ jsonSchema: { type: "string", pattern: /^a+$/ } })
      assert.include(pattern, "jsonSchema.pattern")
      assert.include(pattern, "a RegExp")
      const maximum = yield* invalidOf({
        jsonSchema: { type: "object", properties: { n: { type: "number", maximum: Number.POSITIVE_INFINITY } } }
      })
      assert.include(maximum, "jsonSchema.properties.n.maximum")
      assert.include(maximum, "Infinity")
    }))

  it.effect("a Date among an agent's fields is InvalidInput naming agents.<name>.<field>", () =>
    Effect.gen(function*() {
      const agents = { reviewer: { description: "d", prompt: "p", since: new Date(0) } } as unknown as Launch.LaunchOptions["agents"]
      const message = yield* invalidOf({ agents })
      assert.include(message, "agents.reviewer.since")
    }))

  it.effect("plain JSON data still passes, an undefined property included (JSON leaves it out, as absent)", () =>
    Effect.gen(function*() {
      const options: Launch.LaunchOptions = {
        settings: { permissions: { allow: ["Read"] }, model: undefined },
        jsonSchema: { type: "object", properties: { n: { type: "number", maximum: 10 } } },
        agents: { reviewer: { description: "d", prompt: "p", tools: ["Read"] } }
      }
      assert.strictEqual(yield* Launch.validate(options), options)
    }))
})

describe("validate: a NUL byte is reported under the option that holds it", () => {
  it.effect("an apiKey holding NUL is InvalidInput naming apiKey, without its value", () =>
    Effect.gen(function*() {
      const message = yield* invalidOf({ apiKey: Redacted.make("sk-\0secret-part") })
      assert.include(message, "apiKey must not contain NUL characters")
      assert.notInclude(message, "secret-part")
    }))

  it.effect("a Redacted env value holding NUL is InvalidInput naming the variable, without its value", () =>
    Effect.gen(function*() {
      const message = yield* invalidOf({ env: { MY_TOKEN: Redacted.make("tok\0secret-part") } })
      assert.include(message, "env.MY_TOKEN must not contain NUL characters")
      assert.notInclude(message, "secret-part")
    }))

  it.effect("cwd, gitIdentity, model and the other options are named as the program set them", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Launch.LaunchOptions, string]> = [
        [{ cwd: "/a\0b" }, "cwd must not contain NUL characters"],
        [{ gitIdentity: { name: "a\0b", email: "e@x" } }, "gitIdentity.name must not contain NUL characters"],
        [{ gitIdentity: { name: "n", email: "e\0@x" } }, "gitIdentity.email must not contain NUL characters"],
        [{ model: "opus\0" }, "model must not contain NUL characters"],
        [{ systemPrompt: "a\0b" }, "systemPrompt must not contain NUL characters"],
        [{ allowedTools: ["Read", "B\0ash"] }, "allowedTools must not contain NUL characters"],
        [{ extraArgs: { debug: "a\0b" } }, "extraArgs.debug must not contain NUL characters"],
        [{ extraArgs: ["--debug", "a\0b"] }, "extraArgs must not contain NUL characters"]
      ]
      for (const [options, expected] of cases) {
        const message = yield* invalidOf(options)
        assert.include(message, expected, JSON.stringify(Object.keys(options)))
        // Not under what the option became.
        assert.notInclude(message, "env.PWD")
        assert.notInclude(message, "env.GIT_")
        assert.notInclude(message, "arguments must not")
      }
    }))
})

describe("defaultSecretEnv", () => {
  // The credentials the official SDK lists (sdk.mjs) and the CLI reads from its environment.
  const added = [
    "ANTHROPIC_FOUNDRY_API_KEY",
    "ANTHROPIC_FOUNDRY_AUTH_TOKEN",
    "ANTHROPIC_AWS_API_KEY",
    "CLAUDE_CODE_OAUTH_REFRESH_TOKEN",
    "CLAUDE_CODE_SESSION_ACCESS_TOKEN",
    "CLAUDE_CODE_SESSIONS_OAUTH_TOKEN"
  ]

  it("names the Foundry, Anthropic-on-AWS, OAuth refresh and session tokens, and their plain values become Redacted", () => {
    for (const name of added) assert.include(Launch.defaultSecretEnv, name)
    const env = Object.fromEntries(added.map((name) => [name, `value-of-${name}`]))
    const command = Launch.buildCommand({ env }, noWiring)
    for (const name of added) assert.isTrue(Redacted.isRedacted(command.env[name]), name)
  })
})

describe("stderr in the log: a secret across the cut of a long line", () => {
  const secret = "sk-ant-0123456789abcdefghijklmnop"
  const redact = (text: string) => text.split(secret).join("[redacted]")
  const redacted = (pieces: ReadonlyArray<string>) => Stream.runCollect(redactLines(redact)(Stream.fromIterable(pieces)))

  it.effect("the piece before the cut stops where the secret starts; the rest goes with the next piece", () =>
    Effect.gen(function*() {
      const line = "y".repeat(MAX_LINE_CHARS - 10) + secret + " after"
      const out = yield* redacted([line.slice(0, MAX_LINE_CHARS), line.slice(MAX_LINE_CHARS)])
      assert.deepStrictEqual(out, ["y".repeat(MAX_LINE_CHARS - 10), "[redacted] after"])
    }))

  it.effect("pieces no secret spans, and a line of exactly a piece's length, are written as they came", () =>
    Effect.gen(function*() {
      const full = "x".repeat(MAX_LINE_CHARS)
      const pieces = [full, full, "end", full, "next line", "", "with " + secret]
      assert.deepStrictEqual(yield* redacted(pieces), [full, full, "end", full, "next line", "", "with [redacted]"])
      // A full piece the stream ends on is written at its end.
      assert.deepStrictEqual(yield* redacted(["a", full]), ["a", full])
    }))

  it.effect("a session's debug log (FakeCli) holds neither half of a key cut inside a long stderr line", () =>
    Effect.gen(function*() {
      const key = `sk-ant-api03-${"k".repeat(40)}-${"q".repeat(40)}`
      const logs: Array<string> = []
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ apiKey: Redacted.make(key) })
        yield* session.run("hi")
      })).pipe(
        Effect.provide(FakeCli.layer((cli) =>
          Effect.andThen(
            cli.stderr("y".repeat(MAX_LINE_CHARS - 10) + key + "\n"),
            FakeCli.conversation({})(cli)
          )
        )),
        withCapturedLogs(logs)
      )
      assert.isTrue(logs.some((line) => line.includes("claude stderr: yyyy")), "the stderr line was not logged")
      for (const line of logs) {
        assert.notInclude(line, key.slice(10))
        assert.notInclude(line, "y".repeat(20) + key.slice(0, 10))
      }
    }))
})
