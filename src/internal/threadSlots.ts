/**
 * A value for each thread of a session's messages: the main thread (`""`, every turn's) in a field
 * of its own, a subagent's (keyed by its Task tool use's id) in a map.
 *
 * Why not one map: the main thread's entry is set and deleted on every turn, and V8 replaces a
 * `Map`'s table when a delete leaves it under a quarter full, allocating the new one where the old
 * one was: in the old generation, the map being the session's. Two such deletes a turn left ~300
 * bytes of dead tables a turn in the old generation under a program's tracer
 * (`test/TurnHeapLive.test.ts`). A subagent's entry lives as long as its tool use.
 */
export class ThreadSlots<A> {
  private main: A | undefined = undefined
  private readonly subagents = new Map<string, A>()
  private readonly mainThread: string

  constructor(mainThread: string) {
    this.mainThread = mainThread
  }

  get(thread: string): A | undefined {
    return thread === this.mainThread ? this.main : this.subagents.get(thread)
  }

  set(thread: string, value: A): void {
    if (thread === this.mainThread) this.main = value
    else this.subagents.set(thread, value)
  }

  delete(thread: string): void {
    if (thread === this.mainThread) this.main = undefined
    else this.subagents.delete(thread)
  }

  /** Removes every value, calling `f` with each first. */
  drain(f: (value: A) => void): void {
    if (this.main !== undefined) {
      const main = this.main
      this.main = undefined
      f(main)
    }
    // Entry by entry, never with `clear()` (docs/CONTRIBUTING.md, "Per-turn collections").
    for (const [thread, value] of this.subagents) {
      this.subagents.delete(thread)
      f(value)
    }
  }
}
