/**
 * A map of a few entries at a time, kept in an array: the session's per-turn state keyed by an id
 * (tracing's model calls and marks per thread, its open tool uses; the control requests the CLI has
 * in flight).
 *
 * Why not a `Map`: these gain and lose an entry every turn or every tool use, and V8 replaces a
 * `Map`'s table when a delete leaves it under a quarter full, allocating the new table where the
 * old one was: in the old generation, the map being the session's. Each such delete left a dead
 * table there until the next full GC (tracing's maps, 300 bytes a turn under a program's tracer;
 * its open tool uses, 150 bytes a tool use; `test/TurnHeapLive.test.ts`). An array of a few
 * entries keeps its backing store: a delete moves the later entries down, a set reuses the slot.
 * Lookups are linear, which is as fast as hashing at these sizes.
 */
export class SmallMap<K, V> {
  private readonly keys: Array<K> = []
  private readonly entries: Array<V> = []

  get size(): number {
    return this.keys.length
  }

  get(key: K): V | undefined {
    const at = this.keys.indexOf(key)
    return at === -1 ? undefined : this.entries[at]
  }

  has(key: K): boolean {
    return this.keys.includes(key)
  }

  set(key: K, value: V): void {
    const at = this.keys.indexOf(key)
    if (at !== -1) {
      this.entries[at] = value
      return
    }
    this.keys.push(key)
    this.entries.push(value)
  }

  delete(key: K): void {
    const at = this.keys.indexOf(key)
    if (at === -1) return
    this.keys.splice(at, 1)
    this.entries.splice(at, 1)
  }

  /** The key of the oldest entry whose value `matches`, if any. */
  findKey(matches: (value: V) => boolean): K | undefined {
    const at = this.entries.findIndex(matches)
    return at === -1 ? undefined : this.keys[at]
  }

  /** The values, oldest first (a copy: `f` may change the map). */
  values(): Array<V> {
    return this.entries.slice()
  }

  /**
   * Removes the entries `remove` picks, oldest first, calling `f` with each once it is out (so
   * `f` may change the map); the others stay, in their order.
   */
  removeWhere(remove: (value: V, key: K) => boolean, f: (value: V, key: K) => void): void {
    for (let at = 0; at < this.keys.length;) {
      const key = this.keys[at]!
      const value = this.entries[at]!
      if (!remove(value, key)) {
        at++
        continue
      }
      this.keys.splice(at, 1)
      this.entries.splice(at, 1)
      f(value, key)
    }
  }

  /** Removes every entry, calling `f` with each value first, oldest first. */
  drain(f: (value: V, key: K) => void): void {
    while (this.keys.length > 0) {
      const key = this.keys.shift()!
      const value = this.entries.shift()!
      f(value, key)
    }
  }
}
