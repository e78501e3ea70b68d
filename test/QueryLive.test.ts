/**
 * `ClaudeNode.layer` (the `./node` entry): the real process transport, which needs no platform
 * service, so `Claude.query` needs nothing else (live tier: it runs test/fixtures/fake-claude.mjs).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Path from "node:path"
import * as Claude from "../src/Claude.ts"
import * as ClaudeNode from "../src/ClaudeNode.ts"
import * as NodeEntry from "../src/node.ts"
import type { Transport } from "../src/Transport.ts"

const FAKE_CLAUDE = Path.join(import.meta.dirname, "fixtures", "fake-claude.mjs")

describe("ClaudeNode.layer", () => {
  it.live("runs Claude.query against a real process with nothing else provided (fake-claude.mjs)", () =>
    Effect.gen(function*() {
      // No requirements left: the Node services are inside.
      const layer: Layer.Layer<Transport> = ClaudeNode.layer
      const result = yield* Claude.query("hello over a pipe", {
        executable: FAKE_CLAUDE,
        env: { FAKE_CLAUDE_ECHO: "1" },
        closeGrace: "2 seconds"
      }).pipe(Effect.provide(layer))
      assert.strictEqual(result.result, "echo: hello over a pipe")
    }), { timeout: 30_000 })

  it("is what the ./node entry exports", () => {
    assert.strictEqual(NodeEntry.ClaudeNode.layer, ClaudeNode.layer)
  })
})
