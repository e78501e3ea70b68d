/**
 * The CLI keeps a subagent's metadata (its agent type, ...) in a sidecar file,
 * `subagents/agent-<id>.meta.json`, and mirrors it into the subagent's transcript in the store as
 * an `agent_metadata` entry (a `transcript_mirror` frame for `agent-<id>.jsonl`). Resuming from
 * the store wrote that entry as a line of the subagent's transcript and no sidecar: on another
 * machine the CLI resumed the subagent without its metadata. As the official SDK does, resuming
 * writes the last `agent_metadata` entry (without its `type`) to the sidecar and leaves it out of
 * the transcript; a local sidecar the store lacks is appended as that entry.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { materialize } from "../src/internal/sessionStoreWiring.ts"
import * as SessionStore from "../src/SessionStore.ts"
import { readJsonLines } from "./support/stores.ts"
import { makeTempDir } from "./support/tempDir.ts"

const SESSION = "5e551011-0000-4000-8000-0000000000d4"
const projectKey = "-repo-app"
const key = { projectKey, sessionId: SESSION }
const agentKey = { ...key, subpath: "subagents/agent-a1" }
const entry = (n: number) => ({ type: "user", uuid: `u${n}`, isSidechain: true })

describe("resuming from a store: a subagent's metadata", () => {
  it.effect("the store's agent_metadata entry becomes the subagent's .meta.json, not a line of its transcript", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-agent-meta-")
      const projectsDir = Path.join(dir, "projects")
      const store = yield* SessionStore.makeMemory
      yield* store.append(key, [{ type: "user", uuid: "m1" }])
      yield* store.append(agentKey, [
        { type: "agent_metadata", agentType: "general-purpose" },
        entry(1),
        entry(2),
        { type: "agent_metadata", agentType: "Explore", isBuiltIn: true }
      ])
      assert.isTrue(yield* materialize(store, projectsDir, key))
      const agentDir = Path.join(projectsDir, projectKey, SESSION, "subagents")
      assert.deepStrictEqual(readJsonLines(Path.join(agentDir, "agent-a1.jsonl")), [entry(1), entry(2)])
      const meta = Path.join(agentDir, "agent-a1.meta.json")
      assert.isTrue(Fs.existsSync(meta), "no .meta.json was written")
      assert.deepStrictEqual(JSON.parse(Fs.readFileSync(meta, "utf8")), { agentType: "Explore", isBuiltIn: true })
      assert.strictEqual(Fs.statSync(meta).mode & 0o777, 0o600)
      // Resumed again: the local copy holds nothing the store lacks; nothing is appended.
      assert.isTrue(yield* materialize(store, projectsDir, key))
      assert.strictEqual((yield* Stream.runCollect(store.load(agentKey))).length, 4)
    }).pipe(Effect.scoped))

  it.effect("a local subagent the store lacks is stored with its sidecar, as an agent_metadata entry after its lines", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-agent-meta-")
      const projectsDir = Path.join(dir, "projects")
      const store = yield* SessionStore.makeMemory
      const agentDir = Path.join(projectsDir, projectKey, SESSION, "subagents")
      Fs.mkdirSync(agentDir, { recursive: true })
      Fs.writeFileSync(Path.join(projectsDir, projectKey, `${SESSION}.jsonl`), `${JSON.stringify({ type: "user", uuid: "m1" })}\n`)
      Fs.writeFileSync(Path.join(agentDir, "agent-a1.jsonl"), `${JSON.stringify(entry(1))}\n`)
      Fs.writeFileSync(Path.join(agentDir, "agent-a1.meta.json"), JSON.stringify({ agentType: "Explore" }))
      assert.isFalse(yield* materialize(store, projectsDir, key))
      assert.deepStrictEqual(yield* Stream.runCollect(store.load(agentKey)), [entry(1), { type: "agent_metadata", agentType: "Explore" }])
    }).pipe(Effect.scoped))
})
