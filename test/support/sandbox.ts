/**
 * For the sandbox tests on the real CLI: a model that runs a Bash command making a file, and
 * whether the CLI's sandbox can start on this machine (Linux: `bwrap` and `socat` on PATH).
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as FakeModel from "../../src/testing/FakeModel.ts"

/** The model's turn: `touch made-by-bash` with Bash, then "done". */
export const makesAFile = () => [
  FakeModel.toolUse("Bash", { command: "touch made-by-bash", description: "Make a file" }),
  FakeModel.text("done")
]

/** Whether `name` is an executable on PATH. */
const onPath = (name: string): boolean =>
  (process.env.PATH ?? "").split(Path.delimiter).some((dir) => {
    try {
      Fs.accessSync(Path.join(dir, name), Fs.constants.X_OK)
      return true
    } catch {
      return false
    }
  })

/** Whether the CLI's command sandbox can start here. */
export const sandboxCanStart: boolean = onPath("bwrap") && onPath("socat")
