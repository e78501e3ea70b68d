/**
 * What `rewindFiles`' doc now says, on the real CLI 2.1.332 (it claimed to restore "files" to
 * their state before the turn): a file a Bash command changed is not tracked by file
 * checkpointing, and the rewind succeeds with it left as it is; the dry run lists no file (found
 * by a reviewing helper).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

describe("rewindFiles and a Bash command's changes (real CLI)", { timeout: 120_000 }, () => {
  it.live("succeeds and leaves the file as the command wrote it", () =>
    Effect.gen(function*() {
      const setup = yield* live([], { fileCheckpointing: true })
      const file = Path.join(setup.cwd, "x.txt")
      Fs.writeFileSync(file, "v0\n")
      yield* setup.model.setScript([
        FakeModel.toolUse("Bash", { command: `echo v1 > ${file}`, description: "write v1" }),
        FakeModel.text("wrote v1")
      ])
      const session = yield* Claude.open(setup.options)
      const turn = "11111111-1111-4111-8111-111111111111"
      yield* session.run({ text: "write v1", uuid: turn })
      const dry = yield* session.rewindFiles(turn, { dryRun: true })
      assert.isTrue(dry.canRewind)
      assert.deepStrictEqual(dry.filesChanged, [])
      const rewound = yield* session.rewindFiles(turn)
      assert.isTrue(rewound.canRewind)
      assert.strictEqual(Fs.readFileSync(file, "utf8"), "v1\n")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
