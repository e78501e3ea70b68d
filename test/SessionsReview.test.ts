/**
 * Sessions, found by a reviewing helper:
 * - a text cut to 200 characters (`firstPrompt`, and `title` falling back to it; a `Problem`'s
 *   excerpt) was cut at a UTF-16 code unit, so an emoji across the cut left its first half, a lone
 *   surrogate; the official SDK drops that half;
 * - a line that is JSON but breaks its schema was reported without its line number: the
 *   directory store now keeps the line of each entry it reads beside it (`internal/entryLines.ts`);
 * - the store's excerpt of a line that is not JSON was cut the same way.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"
import { makeTempDir } from "./support/tempDir.ts"

const S1 = "11111111-1111-4111-8111-111111111111"
const cwd = "/work-tree/proj"
const base = { sessionId: S1, timestamp: "2026-01-01T00:00:00.000Z", cwd }

/** Well-formed UTF-16: no lone surrogate (`String.prototype.isWellFormed`, past this lib target). */
const isWellFormed = (text: string): boolean => !/\p{Cs}/u.test(text)

const withMemory = Sessions.layer.pipe(Layer.provideMerge(SessionStore.layerMemory))

const problemsOf = Effect.fnUntraced(function*(sessionId: string) {
  const sessions = yield* Sessions.Sessions
  const all = yield* Stream.runCollect(sessions.entries(sessionId))
  return all.filter(Sessions.isProblem)
})

describe("Sessions texts cut to a length", () => {
  it.effect("firstPrompt and title are well-formed UTF-16: an emoji across the 200th unit is dropped whole", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      // The emoji's halves are units 200 and 201: the cut at 200 units falls between them.
      const prompt = `${"a".repeat(199)}😀 and more text after the emoji`
      yield* store.append({ projectKey: Sessions.projectKey(cwd), sessionId: S1 }, [{
        ...base,
        type: "user",
        uuid: "u1",
        parentUuid: null,
        message: { role: "user", content: prompt }
      }])
      const sessions = yield* Sessions.Sessions
      const info = yield* sessions.info(S1)
      assert.isTrue(isWellFormed(info.firstPrompt!))
      assert.isTrue(isWellFormed(info.title))
      assert.strictEqual(info.firstPrompt, `${"a".repeat(199)}…`)
      assert.strictEqual(info.title, info.firstPrompt)
    }).pipe(Effect.provide(withMemory)))

  it.effect("an emoji whole within 200 units is kept", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      yield* store.append({ projectKey: Sessions.projectKey(cwd), sessionId: S1 }, [{
        ...base,
        type: "user",
        uuid: "u1",
        parentUuid: null,
        message: { role: "user", content: `${"a".repeat(198)}😀 and more` }
      }])
      const info = yield* Effect.flatMap(Sessions.Sessions, (s) => s.info(S1))
      assert.strictEqual(info.firstPrompt, `${"a".repeat(198)}😀…`)
    }).pipe(Effect.provide(withMemory)))

  it.effect("the excerpt of a line that breaks its schema is well-formed UTF-16", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      // Its JSON text puts the emoji's first half at unit 200, the excerpt's last.
      const head = `{"type":"user","pad":"`
      const pad = `${"a".repeat(199 - head.length)}😀 and more`
      yield* store.append({ projectKey: Sessions.projectKey(cwd), sessionId: S1 }, [{ type: "user", pad }])
      const problems = yield* problemsOf(S1)
      assert.strictEqual(problems.length, 1)
      assert.isTrue(isWellFormed(problems[0]!.excerpt))
      assert.strictEqual(problems[0]!.excerpt, `${head}${"a".repeat(199 - head.length)}`)
    }).pipe(Effect.provide(withMemory)))
})

describe("Sessions.entries line numbers", () => {
  it.live("a line that breaks its schema is reported with its line number, blank lines counted", () =>
    Effect.gen(function*() {
      const home = yield* makeTempDir("ecc-sessions-")
      const dir = Path.join(home, ".claude", "projects", Sessions.projectKey(cwd))
      Fs.mkdirSync(dir, { recursive: true })
      Fs.writeFileSync(
        Path.join(dir, `${S1}.jsonl`),
        [
          JSON.stringify({ ...base, type: "user", uuid: "u1", parentUuid: null, message: { role: "user", content: "hi" } }),
          "{\"type\":\"user\",\"uuid\":\"u2\"",
          "",
          JSON.stringify({ ...base, type: "user", uuid: "u3", parentUuid: "u1", message: { role: "bogus" } }),
          ""
        ].join("\n")
      )
      const problems = yield* problemsOf(S1).pipe(Effect.provide(Sessions.layer.pipe(
        Layer.provideMerge(SessionStore.layerDirectory(Path.join(home, ".claude"))),
        Layer.provideMerge(Layer.merge(NodeFileSystem.layer, NodePath.layer))
      )))
      assert.deepStrictEqual(problems.map((p) => p.line), [2, 4])
    }))

  it("the store's excerpt of a line that is not JSON never ends in half a character", () => {
    const entry = SessionStore.parseLine(`${"a".repeat(199)}😀 not JSON`, 7)
    assert.isTrue(SessionStore.isUnreadableLine(entry))
    if (SessionStore.isUnreadableLine(entry)) assert.strictEqual(entry.excerpt, "a".repeat(199))
  })
})
