/**
 * The `effect-claude-code/node` entry: `layerSessions` (which loads Node's services when it is
 * built) reads the CLI's sessions from the real file system. What importing the entry loads:
 * `ClaudeNodeLive.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import { ClaudeNode } from "../src/node.ts"
import * as Sessions from "../src/Sessions.ts"

describe("ClaudeNode", () => {
  it.effect("layerSessions lists the sessions of the config directory, on Node's file system", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-node-"))),
        (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
      )
      const sessionId = "11111111-1111-4111-8111-111111111111"
      const project = Path.join(dir, "projects", Sessions.projectKey(dir))
      Fs.mkdirSync(project, { recursive: true })
      Fs.writeFileSync(
        Path.join(project, `${sessionId}.jsonl`),
        JSON.stringify({
          type: "user",
          uuid: "u1",
          parentUuid: null,
          sessionId,
          cwd: dir,
          timestamp: new Date(0).toISOString(),
          message: { role: "user", content: "Hello from disk" }
        }) + "\n"
      )
      const sessions = yield* Effect.flatMap(Sessions.Sessions, (sessions) => sessions.list({ cwd: dir })).pipe(
        Effect.provide(ClaudeNode.layerSessions),
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { CLAUDE_CONFIG_DIR: dir } })))
      )
      assert.deepStrictEqual(sessions.map((session) => [session.sessionId, session.title]), [[sessionId, "Hello from disk"]])
    }).pipe(Effect.scoped))
})
