/**
 * `Connection.exit` of a CLI that the close ended (SIGTERM after its EOF share) while a process
 * outside its group held its stderr open (a stray in a session of its own, without the sweep's
 * token): the fiber that reports the exit waited for stderr to end and was interrupted with the
 * scope, so `exit` never resolved though the CLI was gone. The close reports the status itself.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { Transport } from "../src/Transport.ts"
import * as ProcessTransport from "../src/internal/processTransport.ts"
import { makeTempDir } from "./support/tempDir.ts"

describe.runIf(process.platform === "linux")("the exit of a CLI the close ended", () => {
  it.live("resolves after the close, while a stray holds its stderr", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-exit-after-close-")
      const cli = Path.join(dir, "claude")
      // The stray: its own session, no token, the CLI's stderr inherited; gone after 3 s.
      Fs.writeFileSync(cli, `#!/bin/sh\nenv -u EFFECT_CLAUDE_CODE_TOKEN setsid sleep 3 &\nexec sleep 60\n`, { mode: 0o755 })
      const transport = yield* Transport
      const scope = yield* Scope.make()
      const connection = yield* transport.open({ executable: cli, args: [], env: {}, closeGrace: Duration.millis(300) })
        .pipe(Scope.provide(scope))
      yield* Effect.sleep("100 millis")
      yield* Scope.close(scope, Exit.void)
      const status = yield* connection.exit.pipe(Effect.timeoutOption("1 second"))
      assert.isTrue(Option.isSome(status), "exit did not resolve within 1 s of the close")
      if (Option.isSome(status)) assert.strictEqual(status.value.signal, "SIGTERM")
    }).pipe(Effect.scoped, Effect.provide(ProcessTransport.layer)))
})
