/**
 * The README's comparison with the official TypeScript SDK, computed: its counts of options,
 * control requests, message types and hook events are the code's, or this test fails and says
 * the numbers to write. The SDK's side is read from its `sdk.d.ts` and `sdk.mjs`
 * (test/support/sdkDeclarations.ts); the library's from its exports (`Protocol`, `HookEvents`)
 * and, for the options (types only), from the `LaunchOptions` and `SessionOptions` interfaces.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as HookEvents from "../src/HookEvents.ts"
import * as Index from "../src/index.ts"
import * as Protocol from "../src/Protocol.ts"
import { sdkControlSubtypes, sdkHookEvents, sdkMessages, sdkOptions, sdkVersion } from "./support/sdkDeclarations.ts"

const root = Path.resolve(import.meta.dirname, "..")
const readme = Fs.readFileSync(Path.join(root, "README.md"), "utf8")

/** The fields of an exported interface of a source file (`readonly name?:` lines, two spaces in). */
const interfaceFields = (file: string, name: string): ReadonlyArray<string> => {
  const text = Fs.readFileSync(Path.join(root, file), "utf8")
  const start = text.indexOf(`export interface ${name}`)
  assert.isAbove(start, -1, `${file} has no interface ${name}`)
  const end = text.indexOf("\n}\n", start)
  return Array.from(text.slice(start, end).matchAll(/^ {2}readonly ([A-Za-z]+)\??:/gm), (m) => m[1]!)
}

/** SDK options the library has under another name. */
const renamed: Readonly<Record<string, string>> = {
  additionalDirectories: "addDirs",
  continue: "continueConversation",
  enableFileCheckpointing: "fileCheckpointing",
  pathToClaudeCodeExecutable: "executable"
}

/** SDK options (callbacks) that are services (Layers) of the library. */
const asServices: Readonly<Record<string, keyof typeof Index>> = {
  canUseTool: "Permissions",
  hooks: "Hooks",
  onElicitation: "Elicitation",
  onUserDialog: "UserDialogs"
}

const libraryOptions = new Set([
  ...interfaceFields("src/Launch.ts", "LaunchOptions"),
  ...interfaceFields("src/Claude.ts", "SessionOptions")
])

/** The counts, as the README's coverage row states them. */
const computed = () => {
  const options = sdkOptions()
  const asOptions = options.filter((o) => libraryOptions.has(o) || libraryOptions.has(renamed[o] ?? ""))
  const services = options.filter((o) => asServices[o] !== undefined && Index[asServices[o]!] !== undefined)
  const subtypes = sdkControlSubtypes()
  const named: ReadonlyArray<string> = Protocol.knownOutgoingRequestSubtypes
  const messages = sdkMessages()
  const events = sdkHookEvents()
  return {
    sdkOptions: options.length,
    options: asOptions.length,
    services: services.length,
    sdkControls: subtypes.length,
    controls: subtypes.filter((s) => named.includes(s)).length,
    sdkMessages: messages.length,
    messages: messages.filter((m) => Protocol.modelledMessageKinds.includes(m.kind)).length,
    sdkHookEvents: events.length,
    hookEvents: events.filter((e) => HookEvents.isKnownEvent(e)).length
  }
}

/** The README's coverage row, to write when the counts change. */
const coverageRow = (c: ReturnType<typeof computed>) =>
  `| Coverage of the TypeScript SDK ${sdkVersion} (computed by test/Parity.test.ts) | — | ` +
  `${c.sdkOptions} options, ${c.sdkControls} control requests, ${c.sdkMessages} message types, ` +
  `${c.sdkHookEvents} hook events | ${c.options} of the options (and ${c.services} more as services), ` +
  `${c.controls} of the control requests, ${c.messages} of the message types, ${c.hookEvents} of the hook events |`

describe("the README's comparison with the official SDKs", () => {
  it("the coverage row states the counts computed from the code and sdk.d.ts", () => {
    const row = coverageRow(computed())
    const line = readme.split("\n").find((l) => l.startsWith("| Coverage of the TypeScript SDK"))
    assert.strictEqual(line, row, `README.md's coverage row should read:\n${row}`)
  })

  it("the Hooks row names the number of typed events", () => {
    const events = computed().hookEvents
    assert.include(readme, `| ${events} events with Schema-decoded inputs and checked outputs`)
  })

  it("every option named as renamed or as a service exists in the library", () => {
    for (const [sdk, library] of Object.entries(renamed)) {
      assert.include(sdkOptions(), sdk)
      assert.isTrue(libraryOptions.has(library), `${library} is not a library option`)
    }
    for (const [sdk, module] of Object.entries(asServices)) {
      assert.include(sdkOptions(), sdk)
      assert.isDefined(Index[module], `${module} is not exported`)
    }
  })

  it("what the counts read: the SDK's lists are the expected size, the library's lists are not empty", () => {
    const c = computed()
    assert.strictEqual(c.sdkMessages, 40)
    assert.strictEqual(c.sdkHookEvents, 34)
    assert.isAbove(c.sdkOptions, 60)
    assert.isAbove(c.sdkControls, 30)
    assert.isAbove(c.options, 30)
    assert.isAbove(c.controls, 10)
  })
})
