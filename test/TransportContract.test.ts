/**
 * One contract for the three transports (issue 13): the invariants of `Connection`
 * (test/support/transportContract.ts) run against the in-memory `FakeCli` with a script that plays
 * the modes of the fake-claude.mjs fixture, and `Replay` on a transcript recorded from the real
 * CLI. test/TransportContractLive.test.ts runs the same contract on the process transport.
 */
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Replay from "../src/testing/Replay.ts"
import { type Behaviour, fakeClaudeModes, transportContract } from "./support/transportContract.ts"

/** The in-memory CLI reads the mode from the environment, as fake-claude.mjs does; nothing is spawned. */
const fakeClaudeLaunch = (behaviour: Behaviour) => ({
  env: { FAKE_CLAUDE_MODE: fakeClaudeModes[behaviour], FAKE_CLAUDE_ECHO: "1" }
})

/**
 * An in-memory CLI that plays the modes of fake-claude.mjs named in its launch spec's
 * `FAKE_CLAUDE_MODE` (`stderr-chatter`, `exit-mid-turn`, `close-stdout`, `ignore-sigterm`), replying
 * `echo: <text>` to each user message.
 */
const fakeClaudeScript = (cli: FakeCli.FakeCliHandle) =>
  Effect.gen(function*() {
    const mode = new Set(String(cli.spec.env.FAKE_CLAUDE_MODE ?? "").split(",").filter((m) => m.length > 0))
    const sessionId = "00000000-0000-4000-8000-00000000c0de"
    if (mode.has("stderr-chatter")) yield* cli.stderr("fake-claude: started, pid 0\n")
    let turns = 0
    let cost = 0
    while (true) {
      const next = yield* Effect.exit(cli.next)
      if (Exit.isFailure(next)) return 0
      const message = next.value
      if (message.type === "control_request") {
        yield* cli.emit(FakeCli.success(message, { commands: [], models: [] }))
        // Ignores EOF (and, having no signals, everything else): only the transport can stop it.
        if (mode.has("ignore-sigterm")) return yield* Effect.never
      } else if (message.type === "user") {
        const text = String((message.message as { content: unknown }).content)
        const turn = ++turns
        const userMessageUuid = typeof message.uuid === "string" ? message.uuid : undefined
        const lines = FakeCli.textTurn({ sessionId, text: `echo: ${text}`, totalCostUsd: (cost += 0.001), userMessageUuid })
        if (mode.has("stderr-chatter")) {
          yield* cli.stderr(`fake-claude: turn ${turn}`)
          yield* cli.stderr(`: ${text}\n`)
        }
        if (mode.has("exit-mid-turn") && turn === 1) {
          yield* cli.emit(lines[0])
          yield* cli.emit(lines[1])
          yield* cli.stderr("fatal: simulated crash\n")
          return 3
        }
        for (const line of lines) yield* cli.emit(line)
        if (mode.has("close-stdout") && turn === 1) yield* cli.closeStdout
      }
    }
  })

transportContract("FakeCli", FakeCli.layer(fakeClaudeScript), {
  launch: fakeClaudeLaunch,
  prompt: "hello",
  resultText: "echo: hello",
  processes: false,
  declines: {}
})

transportContract("Replay (testdata/transcripts/plain-text.ndjson)", Replay.layer(Path.resolve(import.meta.dirname, "../testdata/transcripts/plain-text.ndjson")), {
  // A transcript plays the same recorded CLI whatever the launch spec asks.
  launch: () => ({ env: {} }),
  prompt: "Say hello",
  resultText: "Hello from the fake model.",
  processes: false,
  declines: {
    stderr: "a transcript records no stderr",
    crash: "a transcript plays a CLI that ended at its stdin EOF; its only other end is a mismatch (exit 1)",
    closeStdout: "a transcript's stdout ends at stdin EOF (or at a mismatch, with the mismatch as its failure)",
    stubborn: "a transcript plays a CLI that ended at its stdin EOF"
  }
})
