/**
 * An executable that exists but whose interpreter does not (a `#!/bin/bash` script where there is
 * no bash, a glibc build of the CLI on a musl system, whose ELF loader is missing): exec(2) says
 * ENOENT, which read as "the CLI is not there" while `executable` names a file that is. The
 * `SpawnFailed` says the file exists and that its interpreter was not found.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Claude from "../src/Claude.ts"
import { makeTempDir } from "./support/tempDir.ts"

describe.runIf(process.platform !== "win32")("an executable whose interpreter is missing", () => {
  it.live("SpawnFailed names the missing interpreter, not a missing file", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-shebang-")
      const cli = Path.join(dir, "claude")
      Fs.writeFileSync(cli, "#!/nonexistent/bash\n", { mode: 0o755 })
      const exit = yield* Effect.exit(Effect.scoped(Claude.open({ executable: cli })))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : Option.none()
      assert.isTrue(Option.isSome(error))
      const reason = Option.getOrThrow(error).reason
      assert.strictEqual(reason._tag, "SpawnFailed")
      assert.include(reason.message, "NotFound")
      assert.include(reason.message, "interpreter")
      assert.include(reason.message, "exists")
    }).pipe(Effect.scoped, Effect.provide(Claude.layerProcess)))
})
