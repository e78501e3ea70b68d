/**
 * The supported CLI versions (issue 22): parsing and ordering, the check and its policy, and
 * telling the version of a CLI from the `initialize` answer. Asking a process (`claude --version`)
 * is test/CliVersionLive.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as CliVersion from "../src/CliVersion.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import { reasonOf, withWarnings } from "./support/outcomes.ts"

describe("CliVersion", () => {
  describe("parse, compare, isSupported", () => {
    it("reads a version from what the CLI prints, and orders versions numerically", () => {
      assert.deepStrictEqual(CliVersion.parse("2.1.332"), Option.some({ major: 2, minor: 1, patch: 332, suffix: "" }))
      assert.deepStrictEqual(Option.map(CliVersion.parse("2.1.0 (Claude Code)\n"), CliVersion.format), Option.some("2.1.0"))
      assert.deepStrictEqual(Option.map(CliVersion.parse("v2.1.7"), CliVersion.format), Option.some("2.1.7"))
      assert.strictEqual(Option.getOrThrow(CliVersion.parse("2.2.0-beta.1")).suffix, "-beta.1")
      assert.isTrue(Option.isNone(CliVersion.parse("Claude Code")))
      assert.isTrue(Option.isNone(CliVersion.parse("2.1")))
      const v = (s: string) => Option.getOrThrow(CliVersion.parse(s))
      assert.isBelow(CliVersion.compare(v("2.1.9"), v("2.1.10")), 0)
      assert.isBelow(CliVersion.compare(v("2.0.999"), v("2.1.0")), 0)
      assert.isAbove(CliVersion.compare(v("3.0.0"), v("2.99.99")), 0)
      assert.strictEqual(CliVersion.compare(v("2.1.332"), v("2.1.332 (Claude Code)")), 0)
    })

    it("supports the 2.1 line: the floor 2.1.0 inclusive, 2.2.0 exclusive; every tested version is inside", () => {
      assert.deepStrictEqual(CliVersion.supported, { floor: "2.1.0", below: "2.2.0" })
      for (const inside of ["2.1.0", "2.1.3", "2.1.200", "2.1.332", "2.1.999"]) assert.isTrue(CliVersion.isSupported(inside), inside)
      for (const outside of ["2.0.76", "1.0.128", "2.2.0", "3.0.0", "garbage"]) assert.isFalse(CliVersion.isSupported(outside), outside)
      for (const version of CliVersion.tested) assert.isTrue(CliVersion.isSupported(version), version)
      assert.include(CliVersion.tested, CliVersion.pinned)
      assert.isTrue(CliVersion.isSupported("2.0.1", { floor: "2.0.0", below: "2.1.0" }))
    })

    it("a range that is none (an end that is no version, a floor not below its below): no version is in it, no throw", () => {
      assert.isFalse(CliVersion.isSupported("2.1.5", { floor: "2.1", below: "2.2.0" }))
      assert.isFalse(CliVersion.isSupported("2.1.5", { floor: "2.1.0", below: "latest" }))
      assert.isFalse(CliVersion.isSupported("2.1.5", { floor: "2.2.0", below: "2.1.0" }))
      assert.isString(CliVersion.rangeProblem({ floor: "2.1", below: "2.2.0" }))
    })

    it("a host's control_cancel_request only goes to CLIs that read it (2.1.0 exits on one)", () => {
      for (const reads of ["2.1.100", "2.1.200", "2.1.332", undefined]) assert.isTrue(CliVersion.acceptsControlCancel(reads), String(reads))
      for (const exits of ["2.1.0", "2.1.3", "2.1.99"]) assert.isFalse(CliVersion.acceptsControlCancel(exits), exits)
    })
  })

  describe("check", () => {
    it.effect("a supported version passes, without a warning", () =>
      Effect.gen(function*() {
        const { exit, warnings } = yield* withWarnings(CliVersion.check("2.1.332"))
        assert.isTrue(Exit.isSuccess(exit))
        assert.deepStrictEqual(warnings, [])
        assert.isTrue(Exit.isSuccess(yield* Effect.exit(CliVersion.check("2.1.0 (Claude Code)"))))
      }))

    it.effect("below the floor: UnsupportedCliVersion, with the found and the supported versions in the message", () =>
      Effect.gen(function*() {
        const reason = reasonOf(yield* Effect.exit(CliVersion.check("2.0.76")))
        assert.strictEqual(reason._tag, "UnsupportedCliVersion")
        const unsupported = reason as ClaudeError.UnsupportedCliVersion
        assert.deepStrictEqual([unsupported.found, unsupported.floor, unsupported.below], ["2.0.76", "2.1.0", "2.2.0"])
        assert.include(unsupported.message, "2.0.76")
        assert.include(unsupported.message, ">=2.1.0 <2.2.0")
      }))

    it.effect("above the range is unsupported too; a version that cannot be told is not checked", () =>
      Effect.gen(function*() {
        assert.strictEqual((reasonOf(yield* Effect.exit(CliVersion.check("2.2.0"))) as ClaudeError.UnsupportedCliVersion).found, "2.2.0")
        for (const unknown of [undefined, "nightly", ""]) {
          const { exit, warnings } = yield* withWarnings(CliVersion.check(unknown))
          assert.isTrue(Exit.isSuccess(exit), String(unknown))
          assert.deepStrictEqual(warnings, [])
        }
      }))

    it.effect("onUnsupported: \"warn\" logs the same message as a warning and goes on", () =>
      Effect.gen(function*() {
        const { exit, warnings } = yield* withWarnings(CliVersion.check("2.0.76", { onUnsupported: "warn" }))
        assert.isTrue(Exit.isSuccess(exit))
        assert.strictEqual(warnings.length, 1)
        assert.include(warnings[0], "2.0.76")
        assert.include(warnings[0], ">=2.1.0 <2.2.0")
      }))

    it.effect("a policy's own range replaces the supported one", () =>
      Effect.gen(function*() {
        const range = { floor: "2.2.0", below: "2.3.0" }
        assert.isTrue(Exit.isSuccess(yield* Effect.exit(CliVersion.check("2.2.4", { range }))))
        const reason = reasonOf(yield* Effect.exit(CliVersion.check("2.1.332", { range }))) as ClaudeError.UnsupportedCliVersion
        assert.include(reason.message, ">=2.2.0 <2.3.0")
      }))
  })

  describe("telling the version", () => {
    it("fromInitialize reads claude_code_version from the initialize answer, when there is one", () => {
      assert.strictEqual(CliVersion.fromInitialize({ commands: [], claude_code_version: "2.1.332" }), "2.1.332")
      assert.isUndefined(CliVersion.fromInitialize({ commands: [], output_style: "default" }))
      assert.isUndefined(CliVersion.fromInitialize({ claude_code_version: 2 }))
      assert.isUndefined(CliVersion.fromInitialize(null))
    })

  })
})

describe("CliVersion.atLeast", () => {
  it("a version at or past `since`; never one that cannot be told (it may be older)", () => {
    assert.isTrue(CliVersion.atLeast("2.1.248", CliVersion.verbatimPromptsSince))
    assert.isTrue(CliVersion.atLeast("2.1.332", CliVersion.verbatimPromptsSince))
    assert.isFalse(CliVersion.atLeast("2.1.200", CliVersion.verbatimPromptsSince))
    assert.isFalse(CliVersion.atLeast(undefined, CliVersion.structuredOutputSince))
    assert.isFalse(CliVersion.atLeast("unknown", CliVersion.structuredOutputSince))
    assert.isTrue(CliVersion.atLeast("2.1.200", CliVersion.structuredOutputSince))
  })
})
