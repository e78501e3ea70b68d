/**
 * What the session-store tests share: stores made for a test (one whose `append` is the test's, one
 * that keeps entries deep-equal but not byte-equal), and a CLI's local transcript file written and
 * read as JSON lines. Starts nothing.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as SessionStore from "../../src/SessionStore.ts"

/** A store whose `append` is the test's; it holds nothing to load or list. */
export const appendOnlyStore = (name: string, append: SessionStore.SessionStore["Service"]["append"]) =>
  SessionStore.SessionStore.of({
    name,
    append,
    load: () => Stream.empty,
    list: () => Effect.succeed([]),
    listSubkeys: () => Effect.succeed([]),
    delete: () => Effect.void
  })

/** Each object's keys in reverse order, nested objects too: deep-equal, not byte-equal. */
export const reorder = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reorder)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reorder(v)]))
    : value

/** `store`, but its `load` yields each entry with its keys in another order (as PostgreSQL's JSONB does). */
export const reordering = (store: SessionStore.SessionStore["Service"]) =>
  SessionStore.SessionStore.of({
    ...store,
    load: (key) => Stream.map(store.load(key), (entry) => reorder(entry) as SessionStore.Entry)
  })

/** Writes `lines` to `file` as JSON lines, as the CLI writes a transcript (its folder made if missing). */
export const writeJsonLines = (file: string, lines: ReadonlyArray<unknown>): void => {
  Fs.mkdirSync(Path.dirname(file), { recursive: true })
  Fs.writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(""))
}

/** The JSON lines of `file` (its empty lines left out). */
export const readJsonLines = (file: string): Array<any> =>
  Fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))
