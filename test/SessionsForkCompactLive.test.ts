/**
 * `Sessions.fork` of a session compacted by the real CLI: the fork, resumed, gives the model the
 * conversation the original gives, the message the compaction preserved included (its
 * `compactMetadata` names the fork's own uuids; found by a review).
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Claude from "../src/Claude.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

const script: FakeModel.Script = (request) => {
  const said = FakeModel.lastUserText(request) ?? ""
  if (said.includes("Your task is to create a detailed summary")) return FakeModel.text("<summary>We talked about two questions.</summary>")
  return FakeModel.text(`Answer to ${said.slice(0, 20)}`)
}

/** The texts the model was sent, in order (system reminders left out). */
const conversation = (request: FakeModel.RecordedRequest): Array<string> =>
  request.messages.flatMap((m) => {
    const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content as ReadonlyArray<any>
    return content.flatMap((b: any) => b.type === "text" && !b.text.startsWith("<system-reminder>") ? [`${m.role}: ${b.text.slice(0, 60)}`] : [])
  })

describe("Sessions.fork of a compacted session", { timeout: 180_000 }, () => {
  it.live("the fork resumed gives the model the same conversation as the original resumed", () =>
    Effect.gen(function*() {
      const setup = yield* live(script)
      const sessionId = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open(setup.options)
        yield* session.run("First question")
        yield* session.run("Second question")
        yield* session.run("/compact")
        yield* session.run("Third question")
        return yield* session.sessionId
      }))
      const resumeAndAsk = (id: string) =>
        Effect.gen(function*() {
          yield* Effect.scoped(Effect.gen(function*() {
            const session = yield* Claude.open({ ...setup.options, resume: id, forkSession: true })
            yield* session.run("Next?")
          }))
          return conversation((yield* setup.model.messageRequests).at(-1)!)
        })
      const original = yield* resumeAndAsk(sessionId)
      assert.isTrue(original.some((t) => t.includes("Answer to Second question")), JSON.stringify(original))
      const sessions = yield* Sessions.Sessions.pipe(Effect.provide(Sessions.layer.pipe(
        Layer.provideMerge(SessionStore.layerDirectory(Path.join(setup.home, ".claude"))),
        Layer.provideMerge(NodeServices.layer)
      )))
      const forkId = yield* sessions.fork(sessionId)
      const ofFork = yield* resumeAndAsk(forkId)
      assert.deepStrictEqual(ofFork, original)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
