/**
 * A CLI that cannot be started (its `#!` interpreter missing, a `noexec` mount) fails `open`
 * with `SpawnFailed`; what `open` had made for it (the CLI's temporary root) goes with the
 * failure, not when the caller's scope closes: a program that retries in a long-lived scope
 * would otherwise gather one directory a try.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { Transport } from "../src/Transport.ts"
import * as ProcessTransport from "../src/internal/processTransport.ts"
import { makeTempDir } from "./support/tempDir.ts"

describe("a CLI that cannot be started", () => {
  it.live("open fails with SpawnFailed and leaves no temporary root behind, the caller's scope still open", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-failed-open-")
      const tmp = Path.join(dir, "tmp")
      Fs.mkdirSync(tmp)
      const cli = Path.join(dir, "claude")
      Fs.writeFileSync(cli, "#!/nonexistent/interpreter\n", { mode: 0o755 })
      const transport = yield* Transport
      for (let attempt = 0; attempt < 3; attempt++) {
        const exit = yield* Effect.exit(
          transport.open({ executable: cli, args: ["--settings", "{}"], env: { TMPDIR: tmp }, closeGrace: Duration.seconds(1) })
        )
        assert.isTrue(Exit.isFailure(exit))
        if (Exit.isFailure(exit)) {
          const error = Cause.findErrorOption(exit.cause)
          assert.isTrue(Option.isSome(error))
          if (Option.isSome(error)) assert.strictEqual(error.value.reason._tag, "SpawnFailed")
        }
      }
      assert.deepStrictEqual(Fs.readdirSync(tmp), [], "temporary roots left by the failed opens")
    }).pipe(Effect.scoped, Effect.provide(ProcessTransport.layer)))
})
