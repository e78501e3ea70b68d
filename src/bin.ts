#!/usr/bin/env node
/**
 * The package's executable, `npx effect-claude-code view <transcript.ndjson>` (see
 * `viewer/command.ts`). Runs on Node with `@effect/platform-node`.
 *
 * @since 0.2.0
 */
import * as Fs from "node:fs"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Command from "effect/cli/Command"
import { command } from "./viewer/command.ts"

// The package's own version: package.json is next to src/ and dist/.
const { version } = JSON.parse(Fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }

command.pipe(
  Command.run({ version }),
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain
)
