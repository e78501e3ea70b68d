/**
 * `Turns`' writers waiting to write to a CLI that echoes no uuid (one message at a time): a
 * waiter whose writer stopped waiting (interrupted, or its turn's deadline passed) is forgotten,
 * so that the session keeps nothing of it and a later wake completes only the writers still
 * waiting. `OneMessageAtATime.test.ts` drives the waits through sessions (sends waiting behind a
 * turn, a turn timeout during the wait); this is the bookkeeping under them.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as ClaudeError from "../src/ClaudeError.ts"
import type { TurnResult } from "../src/Events.ts"
import { type Turn, Turns } from "../src/internal/turns.ts"

const makeTurns = () =>
  new Turns({
    toTurnResult: () => {
      throw new Error("no result is read in these tests")
    },
    verdict: () => undefined
  })

const openTurn = (uuid: string): Turn => ({
  uuid,
  queue: undefined,
  span: undefined,
  result: Deferred.makeUnsafe<TurnResult, ClaudeError.ClaudeError>(),
  started: Deferred.makeUnsafe<void>(),
  abandoned: false,
  batch: []
})

const cancelled = (uuid: string) => ClaudeError.make(new ClaudeError.TurnCancelled({ uuid }))

describe("Turns: writers waiting for a CLI that echoes no uuid", () => {
  it.effect("a forgotten waiter is not completed by a later wake; the waiters still waiting are", () =>
    Effect.sync(() => {
      const turns = makeTurns()
      const first = openTurn("turn-1")
      turns.register(first)
      assert.isFalse(turns.writable(), "a written turn is open: no second message may be written")
      const gaveUp = turns.whenWritable()
      const waiting = turns.whenWritable()
      turns.forgetWaiter(gaveUp)
      // The open turn ends (here withdrawn): the session may write again, and wakes its writers.
      turns.withdraw(first, cancelled(first.uuid))
      assert.isTrue(turns.writable())
      assert.isTrue(Deferred.isDoneUnsafe(waiting), "the writer still waiting is woken")
      assert.isFalse(Deferred.isDoneUnsafe(gaveUp), "the forgotten waiter is not: nothing holds it any more")
    }))

  it.effect("forgetting a waiter that was already woken leaves the other waiters alone", () =>
    Effect.sync(() => {
      const turns = makeTurns()
      const first = openTurn("turn-1")
      turns.register(first)
      const woken = turns.whenWritable()
      turns.withdraw(first, cancelled(first.uuid))
      assert.isTrue(Deferred.isDoneUnsafe(woken))
      const second = openTurn("turn-2")
      turns.register(second)
      const waiting = turns.whenWritable()
      turns.forgetWaiter(woken)
      turns.withdraw(second, cancelled(second.uuid))
      assert.isTrue(Deferred.isDoneUnsafe(waiting), "the one waiting now is still woken")
    }))

  it.effect("a waiter asked for while writable is done at once; one asked for while a turn is open waits for the wake", () =>
    Effect.sync(() => {
      const turns = makeTurns()
      const ready = turns.whenWritable()
      assert.isTrue(Deferred.isDoneUnsafe(ready))
      const first = openTurn("turn-1")
      turns.register(first)
      const waiting = turns.whenWritable()
      assert.isFalse(Deferred.isDoneUnsafe(waiting), "a turn is open: it waits")
      turns.withdraw(first, cancelled(first.uuid))
      assert.isTrue(Deferred.isDoneUnsafe(waiting))
    }))
})
