/**
 * The store contract (test/support/sessionStoreContract.ts) on the stores that need no server:
 * memory, and the CLI's directory layout on the real file system (a temp directory; the
 * contract checks modification times, which the in-memory file system of the Sessions tests
 * counts instead of reading the clock). The SQL stores run the same suite in
 * SessionStoreSql(Live).test.ts.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { afterAll } from "@effect/vitest"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as SessionStore from "../src/SessionStore.ts"
import { sessionStoreContract } from "./support/sessionStoreContract.ts"

sessionStoreContract({
  name: "memory",
  fresh: () => SessionStore.layerMemory
})

const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-directory-contract-"))
let counter = 0
afterAll(() => Fs.rmSync(dir, { recursive: true, force: true }))

sessionStoreContract({
  name: "directory (the CLI's layout, a temp directory)",
  fresh: () =>
    SessionStore.layerDirectory(Path.join(dir, `config-${counter++}`)).pipe(
      Layer.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer))
    ),
  longSession: 300
})
