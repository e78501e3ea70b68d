/**
 * `internal/smallMap.ts`: a map of a few entries kept in an array (tracing's per-thread state and
 * open tool uses, the CLI's requests in flight) behaves as a `Map` does for what those use.
 */
import { assert, describe, it } from "@effect/vitest"
import { SmallMap } from "../src/internal/smallMap.ts"

describe("SmallMap", () => {
  it("get, has, set (a second set replaces in place), delete of any entry, size", () => {
    const map = new SmallMap<string, number>()
    map.set("a", 1)
    map.set("b", 2)
    map.set("c", 3)
    map.set("b", 20)
    assert.strictEqual(map.size, 3)
    assert.strictEqual(map.get("b"), 20)
    assert.isTrue(map.has("c"))
    map.delete("b")
    map.delete("missing")
    assert.isFalse(map.has("b"))
    assert.isUndefined(map.get("b"))
    assert.deepStrictEqual(map.values(), [1, 3])
    map.set("b", 4)
    assert.deepStrictEqual(map.values(), [1, 3, 4])
  })

  it("values is a copy; drain removes every entry, oldest first, even when its callback adds none back", () => {
    const map = new SmallMap<string, number>()
    map.set("a", 1)
    map.set("b", 2)
    const values = map.values()
    map.delete("a")
    assert.deepStrictEqual(values, [1, 2])
    map.set("c", 3)
    const drained: Array<string> = []
    map.drain((value, key) => {
      drained.push(`${key}=${value}`)
      // What a callback reads of the map sees the entry gone.
      assert.isFalse(map.has(key))
    })
    assert.deepStrictEqual(drained, ["b=2", "c=3"])
    assert.strictEqual(map.size, 0)
  })

  it("object keys are compared by identity, as in a Map", () => {
    const a = { id: 1 }
    const map = new SmallMap<object, string>()
    map.set(a, "first")
    map.set({ id: 1 }, "other")
    assert.strictEqual(map.get(a), "first")
    assert.strictEqual(map.size, 2)
  })

  it("removeWhere takes out the entries it picks, in order, each gone when f sees it; the rest stay in order", () => {
    const map = new SmallMap<string, number>()
    for (const [key, value] of [["a", 1], ["b", 2], ["c", 3], ["d", 4]] as const) map.set(key, value)
    const removed: Array<string> = []
    map.removeWhere((value) => value % 2 === 0, (value, key) => {
      removed.push(`${key}=${value}`)
      assert.isFalse(map.has(key))
    })
    assert.deepStrictEqual(removed, ["b=2", "d=4"])
    assert.deepStrictEqual(map.values(), [1, 3])
  })

  it("findKey gives the key of the oldest entry whose value matches, or undefined", () => {
    const map = new SmallMap<string, string>()
    for (const [key, value] of [["a", "x"], ["b", "y"], ["c", "y"]] as const) map.set(key, value)
    assert.strictEqual(map.findKey((value) => value === "y"), "b")
    assert.isUndefined(map.findKey((value) => value === "z"))
  })
})
