/**
 * The CLI's own `assistant` line for an API error, told apart from a local slash command's
 * output, which is of model `<synthetic>` too. CLI 2.1.332 writes `local_command_source` on every
 * local command's line (`/cost`; `/status` refused in print mode, with `local_command_outcome`),
 * and `local_command_run` on those that ran.
 */
import type { AssistantMessage } from "../protocol/messages.ts"

/** Whether `event` is the CLI's line for an API error (whose text the turn's failure reports). */
export const isApiErrorLine = (event: AssistantMessage): boolean =>
  event.is_api_error_message === true || event.error !== undefined ||
  (event.message.model === "<synthetic>" && !("local_command_source" in event) && !("local_command_run" in event))
