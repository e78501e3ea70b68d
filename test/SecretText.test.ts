/**
 * `internal/secretText.ts`: secrets replaced inside strings and keys, never inside numbers, the
 * caller's value never touched, and a deep value walked once per node (a walk that redacted each
 * level's children twice was exponential in the depth; found by a reviewing helper).
 */
import { assert, describe, it } from "@effect/vitest"
import * as SecretText from "../src/internal/secretText.ts"

const SECRET = "sk-test-0123456789"
const forms = SecretText.formsOf(SECRET)

describe("secretText", () => {
  it("replaces a secret in strings and keys, leaves numbers and the caller's value alone", () => {
    const value = { [`k-${SECRET}`]: [`say ${SECRET}`, 20250611, { n: 1 }], plain: "x" }
    const redacted = SecretText.redactValue(value, forms)
    assert.deepStrictEqual(redacted, { "k-[redacted]": ["say [redacted]", 20250611, { n: 1 }], plain: "x" })
    assert.deepStrictEqual(value, { [`k-${SECRET}`]: [`say ${SECRET}`, 20250611, { n: 1 }], plain: "x" })
    const untouched = { a: { b: "nothing here" } }
    assert.strictEqual(SecretText.redactValue(untouched, forms), untouched)
  })

  it("walks a value nested deep, a secret at its leaf and a sibling at each level, once per node", () => {
    let value: unknown = `leaf ${SECRET}`
    for (let depth = 0; depth < 20; depth++) value = { a: value, b: "sibling" }
    // Counted, not timed: the searches the walk makes (a linear walk makes a few per node; one
    // that redacted each level's children twice made about 2^20 here).
    const includes = String.prototype.includes
    let searches = 0
    String.prototype.includes = function(this: string, ...args: Parameters<typeof includes>) {
      searches++
      return includes.apply(this, args)
    }
    let redacted: { a: unknown; b: string }
    try {
      redacted = SecretText.redactValue(value, forms) as { a: unknown; b: string }
    } finally {
      String.prototype.includes = includes
    }
    assert.isAtMost(searches, 20 * 3 * 4 * forms.length)
    for (let depth = 0; depth < 20; depth++) {
      assert.strictEqual(redacted.b, "sibling")
      redacted = redacted.a as { a: unknown; b: string }
    }
    assert.strictEqual(redacted as unknown, "leaf [redacted]")
  })

  it("a part of a secret at a cut: replaced from 4 characters on, at the end and at the start", () => {
    assert.strictEqual(SecretText.redactCutEnd(`text ${SECRET.slice(0, 6)}`, forms), "text [redacted]")
    assert.strictEqual(SecretText.redactCutEnd("text sk-", forms), "text sk-")
    assert.strictEqual(SecretText.redactCutStart(`${SECRET.slice(-5)} text`, forms), "[redacted] text")
    assert.strictEqual(SecretText.openPrefixLength(`text ${SECRET.slice(0, 3)}`, forms), 3)
  })
})
