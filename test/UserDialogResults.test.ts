/**
 * CLI 2.1.332's one dialog kind, `refusal_fallback_prompt`, takes as `result` one of
 * `"retry_fallback"`, `"edit_prompt"`, `"cancelled"` (its embedded schema), and replaces any
 * other result by its default without a word. The library sent such answers as `completed`,
 * unreported; the module's own example was one (found by a reviewing helper; failing before).
 * A result of a known kind is now checked: one the CLI would not take is an invalid answer,
 * cancelled and reported. A third review found the CLI defining many more kinds with a closed
 * list of results (its binary's `Es({kind, result, default})` definitions): all are listed.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import type * as HandlerFailure from "../src/HandlerFailure.ts"
import * as UserDialogs from "../src/UserDialogs.ts"

const request = (kind: string) => ({
  subtype: "request_user_dialog",
  dialog_kind: kind,
  payload: { originalModel: "claude-opus-5-5", fallbackModel: "claude-sonnet-5" },
  tool_use_id: "toolu_1"
})

const show = (result: UserDialogs.UserDialogResult, kind = "refusal_fallback_prompt") =>
  Effect.gen(function*() {
    const reports: Array<HandlerFailure.HandlerFailed> = []
    const service = yield* UserDialogs.fromHandler([kind], () => Effect.succeed(result))
    const answer = yield* UserDialogs.bind(service, (event) => void reports.push(event)).show(request(kind), "r1").pipe(
      Effect.provide(Logger.layer([]))
    )
    return { answer, reports }
  })

describe("UserDialogs: results the CLI would not take", () => {
  for (const result of [{ choice: "retry" }, "retry", 1]) {
    it.effect(`refusal_fallback_prompt answered ${JSON.stringify(result)}: cancelled and reported as an invalid answer`, () =>
      Effect.gen(function*() {
        const { answer, reports } = yield* show(UserDialogs.completed(result))
        assert.deepStrictEqual(answer, { behavior: "cancelled" })
        assert.deepStrictEqual(reports.map((r) => r.failure), ["invalid_answer"])
        assert.include(reports[0]!.message, "retry_fallback")
      }))
  }

  it.effect("each result the CLI offers goes through", () =>
    Effect.gen(function*() {
      for (const result of ["retry_fallback", "edit_prompt", "cancelled"]) {
        const { answer, reports } = yield* show(UserDialogs.completed(result))
        assert.deepStrictEqual(answer, { behavior: "completed", result })
        assert.strictEqual(reports.length, 0)
      }
    }))

  it.effect("a kind the library does not know is left to the program and the CLI", () =>
    Effect.gen(function*() {
      const { answer, reports } = yield* show(UserDialogs.completed({ any: "shape" }), "some_future_dialog")
      assert.deepStrictEqual(answer, { behavior: "completed", result: { any: "shape" } })
      assert.strictEqual(reports.length, 0)
    }))

  // CLI 2.1.332's dialog kinds whose result is one of a closed list (read from its binary; a
  // sixth review found ten more whose kind name is a variable there).
  const closed: Record<string, ReadonlyArray<string>> = {
    auto_default_nudge: ["accept", "decline", "cancelled"],
    auto_mode_end_offer: ["stay", "switch", "interrupt", "cancelled"],
    auto_mode_server_fallback: ["continue", "interrupt", "cancelled"],
    bypass_switch_back: ["next_mode", "plan", "setup", "bypass_now", "bypass_always", "stay", "cancelled"],
    cold_resume_quota: ["resume", "new_conversation", "dismiss", "cancelled"],
    cost_threshold: ["acknowledged", "cancelled"],
    fullscreen_upsell: ["accept", "dismiss", "cancelled"],
    newer_model_offer: ["resume_on_newer_model", "keep", "dismiss", "cancelled"],
    send_to_project_remote_control_offer: ["turned_on", "already_on", "declined", "failed"],
    ultraplan_choice: ["here", "fresh", "cancel", "cancelled"],
    // Two more whose kind name is a variable, found by a seventh review.
    resume_return: ["compact", "continue", "dismiss", "never", "cancelled"],
    check_in_question: ["new", "chat", "tried", "agents", "own", "check", "step", "other_question", "skip", "cancelled"],
    // Its list is a variable of the binary's, not written inline (found by a fifth review).
    auto_mode_outside_reads: ["allow", "block", "ask_again", "allow_once"],
    auto_mode_setup_review: ["accept", "decline", "cancelled"],
    chrome_install_setup: ["continue", "keep_waiting", "skip", "cancelled"],
    chrome_install_upsell: ["install", "not_now", "dont_ask_again", "cancelled"],
    computer_use_first_use: ["not_now", "turn_off", "turn_on", "cancelled"],
    device_mcp_consent: ["allow", "deny", "not_now"],
    fable_overage_consent_prompt: ["consent", "switch_default", "cancelled", "request_admin"],
    ide_onboarding: ["dismissed", "cancelled"],
    it2_setup: ["installed", "use-tmux", "cancelled"],
    left_arrow_confirm: ["confirm", "stay", "cancelled"],
    lsp_recommendation: ["yes", "no", "timeout", "never", "disable", "cancelled"],
    managed_settings_security: ["approved", "rejected", "deferred_no_consent_surface"],
    mcp_elicitation_waiting: ["dismiss", "retry", "cancel", "cancelled"],
    plugin_hint: ["yes", "no", "disable", "cancelled"],
    refusal_fallback_prompt: ["retry_fallback", "edit_prompt", "cancelled"],
    remote_callout: ["enable", "dismiss", "cancelled"],
    ultraplan_launch: ["run", "run_with_upload_notice", "cancel", "cancelled"],
    unattended_serving_consent: ["accept", "decline", "not_now"]
  }

  it.effect("every kind with a closed list of results is known, and a result off its list is cancelled and reported", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(UserDialogs.knownResults, closed)
      for (const [kind, results] of Object.entries(closed)) {
        const off = yield* show(UserDialogs.completed("bogus"), kind)
        assert.deepStrictEqual(off.answer, { behavior: "cancelled" }, kind)
        const on = yield* show(UserDialogs.completed(results[0]), kind)
        assert.deepStrictEqual(on.answer, { behavior: "completed", result: results[0] }, kind)
      }
    }))
})
