/**
 * A session whose only prompt is an image (a screenshot pasted without text) or a document has no
 * text to title it: the official SDK's `listSessions` (0.3.332) titles it "Image" or "Document".
 * `list` left it out, and `info` gave it an empty title (found by a review, against the SDK's own
 * `listSessions` on the same directory).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"
import * as MemoryFs from "./support/memoryFileSystem.ts"

const IMAGE = "1b7c4a1e-2f3d-4c5b-8a69-7e8f9a0b1c21"
const DOCUMENT = "2c8d5b2f-3a4e-4d6c-9b7a-8f9a0b1c2d32"
const TEXT_LATER = "3d9e6c3a-4b5f-4e7d-8c8b-9a0b1c2d3e43"
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

const userLine = (sessionId: string, content: unknown) => ({
  type: "user",
  uuid: crypto.randomUUID(),
  parentUuid: null,
  sessionId,
  timestamp: "2026-01-01T00:00:00.000Z",
  cwd: "/srv/demo-project",
  message: { role: "user", content }
})

describe("Sessions of a prompt without text", () => {
  it.effect("an image-only or document-only prompt titles the session Image or Document, as the SDK", () =>
    Effect.gen(function*() {
      const config = "/users-home/someone/.claude"
      const dir = `${config}/projects/${Sessions.projectKey("/srv/demo-project")}`
      const memory = MemoryFs.make()
      const write = (sessionId: string, lines: ReadonlyArray<object>) =>
        MemoryFs.writeText(memory.state, `${dir}/${sessionId}.jsonl`, lines.map((l) => JSON.stringify(l) + "\n").join(""))
      write(IMAGE, [userLine(IMAGE, [{ type: "image", source: { type: "base64", media_type: "image/png", data: png } }])])
      write(DOCUMENT, [userLine(DOCUMENT, [{ type: "document", source: { type: "text", media_type: "text/plain", data: "x" } }])])
      // A text prompt, even a later one, is the title.
      write(TEXT_LATER, [
        userLine(TEXT_LATER, [{ type: "image", source: { type: "base64", media_type: "image/png", data: png } }]),
        userLine(TEXT_LATER, "What is in it?")
      ])
      const sessions = yield* Sessions.Sessions.pipe(Effect.provide(Sessions.layer.pipe(
        Layer.provideMerge(SessionStore.layerDirectory(config)),
        Layer.provideMerge(memory.layer)
      )))
      const listed = [...yield* sessions.list()].sort((a, b) => a.sessionId.localeCompare(b.sessionId))
      assert.deepStrictEqual(listed.map((s) => [s.sessionId, s.title, s.firstPrompt]), [
        [IMAGE, "Image", undefined],
        [DOCUMENT, "Document", undefined],
        [TEXT_LATER, "What is in it?", "What is in it?"]
      ])
      assert.strictEqual((yield* sessions.info(IMAGE)).title, "Image")
    }))
})
