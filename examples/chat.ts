/**
 * A multi-turn chat: one session, several turns, each a `Stream` of events ending with its
 * result. The CLI keeps the conversation, so later turns see the earlier ones; `turn.costUsd`
 * is what each turn cost (the CLI's `total_cost_usd` is a running total).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { fakeModel, isMain, processLayer } from "./support.ts"

/** A fake model with a memory: it answers from the whole conversation the CLI sends it. */
const rememberingModel: FakeModel.Script = (request) => {
  const said = JSON.stringify(request.messages)
  const question = FakeModel.lastUserText(request) ?? ""
  const name = /My name is (\w+)/.exec(said)?.[1]
  if (/what is my name/i.test(question)) return FakeModel.text(name === undefined ? "You did not say." : `Your name is ${name}.`)
  if (name !== undefined && question.includes(name)) return FakeModel.text(`Nice to meet you, ${name}.`)
  return FakeModel.text("Noted.")
}

/** What the chat gives back: each turn's answer and cost. */
export interface ChatOutcome {
  readonly answers: ReadonlyArray<string>
  readonly costs: ReadonlyArray<number>
  readonly total: number
}

/** Three turns on one session; the text of each streams as it arrives. */
export const program: Effect.Effect<ChatOutcome, ClaudeError.ClaudeError> = Effect.gen(function*() {
  const { options } = yield* fakeModel(rememberingModel)
  const session = yield* Claude.open(options)
  const answers: Array<string> = []
  const costs: Array<number> = []
  let total = 0
  for (const prompt of ["My name is Ada.", "The sky is blue.", "What is my name?"]) {
    yield* Console.log(`> ${prompt}`)
    yield* session.turn(prompt).pipe(
      Stream.runForEach((event) =>
        Effect.sync(() => {
          if (
            event.type === "stream_event" && event.event.type === "content_block_delta" &&
            event.event.delta.type === "text_delta"
          ) process.stdout.write(event.event.delta.text)
          if (event.type === "result") {
            process.stdout.write(`\n(this turn $${event.turn.costUsd.toFixed(6)}, the session so far $${event.total_cost_usd.toFixed(6)})\n`)
            answers.push(event.result ?? "")
            costs.push(event.turn.costUsd)
            total = event.total_cost_usd
          }
        })
      )
    )
  }
  return { answers, costs, total }
}).pipe(Effect.scoped, Effect.provide(processLayer))

if (isMain(import.meta)) NodeRuntime.runMain(program)
