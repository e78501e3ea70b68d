/**
 * The contract of test/support/transportContract.ts on the process transport (live tier), with
 * test/fixtures/fake-claude.mjs in the modes that give each behaviour. The in-memory transports
 * run it in test/TransportContract.test.ts.
 */
import { NodeServices } from "@effect/platform-node"
import * as Path from "node:path"
import * as Layer from "effect/Layer"
import * as Claude from "../src/Claude.ts"
import { type Behaviour, fakeClaudeModes, transportContract } from "./support/transportContract.ts"

const FAKE_CLAUDE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")

const fakeClaudeLaunch = (behaviour: Behaviour) => ({
  executable: FAKE_CLAUDE,
  env: { FAKE_CLAUDE_MODE: fakeClaudeModes[behaviour], FAKE_CLAUDE_ECHO: "1" }
})

transportContract("process (fake-claude.mjs)", Claude.layerProcess.pipe(Layer.provide(NodeServices.layer)), {
  launch: fakeClaudeLaunch,
  prompt: "hello",
  resultText: "echo: hello",
  processes: true,
  declines: {}
})
