/**
 * Hook inputs as the CLI sends them, for tests that call a `Hooks` service directly.
 */

/** The input of a `PreToolUse` hook for a Bash call of `rm -rf /`: what a guard must refuse. */
export const preToolUseRmRf = {
  session_id: "00000000-0000-4000-8000-000000000000",
  transcript_path: "t.jsonl",
  cwd: "/",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "rm -rf /" },
  tool_use_id: "toolu_1"
}
