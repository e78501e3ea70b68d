/**
 * The small JSON helpers the modules share (`src/internal/json.ts`): a record check, a string
 * field, JSON text that never throws, the UUID check the session ids go through.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Json from "../src/internal/json.ts"

describe("internal/json", () => {
  it("isRecord: an object that is not null or an array; str: a string or undefined", () => {
    assert.isTrue(Json.isRecord({ a: 1 }))
    for (const u of [null, [], "x", 1, undefined]) assert.isFalse(Json.isRecord(u))
    assert.strictEqual(Json.str("x"), "x")
    assert.strictEqual(Json.str(1), undefined)
  })

  it("stringify: JSON text, indented when asked; String(value) for what JSON cannot hold", () => {
    assert.strictEqual(Json.stringify({ a: [1] }), `{"a":[1]}`)
    assert.strictEqual(Json.stringify({ a: 1 }, 2), `{\n  "a": 1\n}`)
    assert.strictEqual(Json.stringify(undefined), "undefined")
    assert.strictEqual(Json.stringify(10n), "10")
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    assert.strictEqual(Json.stringify(cycle), "[object Object]")
  })

  it("isUuid: the 8-4-4-4-12 hexadecimal form, either case", () => {
    assert.isTrue(Json.isUuid("11111111-1111-4111-8111-111111111111"))
    assert.isTrue(Json.isUuid("ABCDEF01-2345-6789-ABCD-EF0123456789"))
    for (const s of ["", "11111111-1111-4111-8111-11111111111", "../etc", "11111111-1111-4111-8111-111111111111\n"]) {
      assert.isFalse(Json.isUuid(s), s)
    }
  })
})
