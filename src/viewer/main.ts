/**
 * The package's command line on Node (`effect-claude-code`, see `command.ts`), loaded by `bin.ts`
 * once it found `@effect/platform-node`, which this module and `server.ts` import.
 *
 * @since 0.2.0
 */
import * as Fs from "node:fs"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Command from "effect/cli/Command"
import { command } from "./command.ts"

/**
 * The package's own manifest: the nearest `package.json` above this file, which is the package's
 * whether this runs from `src/viewer/` or from the build (`dist/chunks/`, `scripts/build.ts`).
 */
const manifest = (): { readonly version: string } => {
  for (let dir = new URL(".", import.meta.url); ; dir = new URL("..", dir)) {
    const file = new URL("package.json", dir)
    if (Fs.existsSync(file)) return JSON.parse(Fs.readFileSync(file, "utf8")) as { readonly version: string }
    // The root (`/`, or `/C:/` on Windows) is its own parent.
    if (new URL("..", dir).href === dir.href) throw new Error(`effect-claude-code: no package.json above ${import.meta.url}`)
  }
}
const { version } = manifest()

command.pipe(
  Command.run({ version }),
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain
)
