/**
 * The raw protocol captures of the real CLI 2.1.332 (`testdata/protocol/*.ndjson`, one file per
 * probe: `{"t","dir":"send"|"recv"|"meta"|"raw","msg"?}` per line). The one
 * place that knows where they are: the protocol and property tests and `bench/decode.micro.ts`
 * read them through here, relative to this file, so a fresh clone has everything it needs.
 */
import * as Fs from "node:fs"

/** The folder of the captures. */
export const protocolDir: URL = new URL("../../testdata/protocol/", import.meta.url)

/** One message line of a capture. */
export interface ProtocolLine {
  /** The capture's name (file name without `.ndjson`). */
  readonly file: string
  /** 0-based line number in the file. */
  readonly index: number
  readonly dir: "recv" | "send"
  readonly msg: Record<string, unknown>
}

/** The capture files, sorted. */
export const protocolFiles = (): ReadonlyArray<string> =>
  Fs.readdirSync(protocolDir).filter((f) => f.endsWith(".ndjson")).sort()

/**
 * Every `send`/`recv` line of every capture, as fresh objects on each call (callers may mutate
 * them). `meta` lines (the recorder's notes) and `raw` lines (non-JSON output) are left out.
 */
export const readProtocolLines = (): Array<ProtocolLine> => {
  const lines: Array<ProtocolLine> = []
  for (const file of protocolFiles()) {
    const text = Fs.readFileSync(new URL(file, protocolDir), "utf8")
    text.split("\n").forEach((raw, index) => {
      if (raw.trim().length === 0) return
      const entry = JSON.parse(raw) as { readonly dir: string; readonly msg?: Record<string, unknown> }
      if ((entry.dir === "recv" || entry.dir === "send") && entry.msg !== undefined) {
        lines.push({ file: file.replace(/\.ndjson$/, ""), index, dir: entry.dir, msg: entry.msg })
      }
    })
  }
  return lines
}

/**
 * The `request` body of the `n`-th (0-based) `control_request` of `subtype` that the CLI sent in
 * capture `file` and that satisfies `where`. Throws when there is none (a stale fixture).
 */
export const capturedRequest = (
  file: string,
  subtype: string,
  where: (request: Record<string, unknown>) => boolean = () => true,
  n = 0
): Record<string, unknown> => {
  const found = readProtocolLines()
    .filter((l) => l.file === file && l.dir === "recv" && l.msg.type === "control_request")
    .map((l) => l.msg.request as Record<string, unknown>)
    .filter((request) => request.subtype === subtype && where(request))[n]
  if (found === undefined) throw new Error(`no ${subtype} request #${n} in testdata/protocol/${file}.ndjson`)
  return found
}
