/**
 * The timeline page: a {@link Timeline.Timeline} as one HTML document, with its CSS and its small
 * script inline, and a Content-Security-Policy that lets the page load nothing and reach nothing
 * (but, when it follows a live transcript, its own server's event stream).
 *
 * Rendering is on the server: the page is the data. The script only folds and unfolds, and,
 * with `follow`, replaces or appends the turns the server sends as Server-Sent Events
 * (`{"parts":[{"id","html"}]}`).
 *
 * @since 0.2.0
 */
import * as Crypto from "node:crypto"
import type * as Timeline from "../Timeline.ts"
import { stringify } from "../internal/json.ts"

/** Text longer than this (characters or lines) is folded in a `<details>`. */
const FOLD_CHARS = 600
const FOLD_LINES = 12

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }

/**
 * The text, safe inside HTML elements and quoted attributes.
 *
 * @since 0.2.0
 * @category rendering
 */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!)

/** Text between tags: only `&` and `<` need escaping (quotes stay one byte: JSON is full of them). */
const escapeText = (text: string): string => text.replace(/[&<>]/g, (c) => ESCAPES[c]!)

/** A value as a block: pretty JSON, folded behind its one-line form when long. */
const jsonBlock = (value: unknown): string => {
  if (typeof value === "string") return block(value)
  return block(stringify(value, 2), stringify(value))
}

const countLines = (text: string): number => {
  let n = 1
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++
  return n
}

/** A block of text, folded when long: its first line (or `gist`) as the summary. */
const block = (text: string, gist?: string): string => {
  // The HTML parser drops one newline right after `<pre>`: this one, not the text's own.
  const pre = `<pre>\n${escapeText(text)}</pre>`
  if (text.length <= FOLD_CHARS && (text.length < 200 || countLines(text) <= FOLD_LINES)) return pre
  const first = (gist ?? text).slice(0, 120).split("\n")[0]!
  return `<details><summary>${escapeText(first)} … <span class="dim">(${countLines(text)} lines, ${text.length} chars)</span></summary>${pre}</details>`
}

const seconds = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`)
const usd = (x: number): string => `$${x < 0.01 && x > 0 ? x.toFixed(6) : x.toFixed(4)}`
/** The time of day (UTC); `?` for a value no `Date` holds (a line built without `Transcript.Line`'s checks). */
const clock = (ts: number): string => {
  const date = new Date(ts)
  return Number.isNaN(date.getTime()) ? "?" : date.toISOString().slice(11, 23)
}
const offset = (ts: number | undefined, start: number | undefined): string =>
  ts === undefined ? "" : `<span class="at">${start === undefined ? clock(ts) : `+${seconds(Math.max(0, ts - start))}`}</span>`

/** A `system` line in one short line: its fields but the ones every line has. */
const systemGist = (message: unknown): string => {
  if (typeof message !== "object" || message === null) return ""
  const { type: _type, subtype: _subtype, session_id: _session, uuid: _uuid, user_message_uuids: _uuids, ...rest } = message as Record<
    string,
    unknown
  >
  return stringify(rest)
}

const decision = (answer: Timeline.Answer | undefined): string =>
  answer === undefined
    ? `<span class="badge pending">no answer</span>`
    : `<span class="badge ${answer.ok || answer.summary === "cancelled" ? escapeHtml(answer.summary) : "error"}">${
      escapeHtml(answer.summary)
    }</span>`

/**
 * The end of an item's class attribute: a subagent's item (`subagent`: the tool use that runs it)
 * is marked, and names that tool use on hover.
 */
const sub = (subagent: string | undefined): string =>
  subagent === undefined ? `"` : ` sub" title="subagent of ${escapeHtml(subagent)}"`

const item = (it: Timeline.Item, start: number | undefined): string => {
  const at = offset(it.ts, start)
  switch (it.kind) {
    case "text":
      return `<div class="item text${sub(it.subagent)}>${at}${block(it.text)}</div>`
    case "thinking":
      return `<div class="item thinking${sub(it.subagent)}>${at}${block(it.text)}</div>`
    case "tool": {
      const result = it.result === undefined
        ? `<div class="result pending">no result yet</div>`
        : `<div class="result${it.result.isError ? " error" : ""}">${block(it.result.text)}</div>`
      return `<div class="item tool${sub(it.subagent)}>${at}<b class="name" title="${escapeHtml(it.id)}">${escapeHtml(it.name)}</b>${jsonBlock(it.input)}${result}</div>`
    }
    case "permission":
      return `<div class="item permission">${at}<b>${escapeHtml(it.toolName)}</b> ${decision(it.decision)}${jsonBlock(it.decision?.body ?? it.input)}</div>`
    case "hook":
      return `<div class="item hook">${at}<b>${escapeHtml(it.event)}</b>${it.toolName === undefined ? "" : ` ${escapeHtml(it.toolName)}`} ${decision(it.decision)}${jsonBlock({ answer: it.decision?.body, input: it.input })}</div>`
    case "control":
      return `<div class="item control ${it.dir}">${at}<b>${escapeHtml(it.subtype)}</b> ${decision(it.decision)}${jsonBlock({ request: it.request, answer: it.decision?.body })}</div>`
    case "system":
    {
      const gist = systemGist(it.message)
      // A short line is shown whole; a longer one folded, its fields in full inside.
      return gist.length <= 120
        ? `<div class="item system">${at}<b>${escapeHtml(it.subtype)}</b> ${escapeHtml(gist)}</div>`
        : `<div class="item system">${at}<details><summary><b>${escapeHtml(it.subtype)}</b> ${escapeHtml(gist.slice(0, 120))}…</summary>${
          jsonBlock(it.message)
        }</details></div>`
    }
    case "error":
      return `<div class="item error">${at}${block(it.text)}</div>`
    case "problem":
      return `<div class="item problem">${at}${escapeHtml(it.description)}${block(it.line)}</div>`
  }
}

const summary = (s: Timeline.Summary | undefined, turn: Timeline.Turn): string => {
  if (s === undefined && turn.mergedInto !== undefined) {
    return `<span class="badge ${turn.status}">answered with turn ${turn.mergedInto}</span>`
  }
  if (s === undefined && turn.status === "cancelled") {
    return `<span class="badge cancelled">cancelled before it ran</span>`
  }
  if (s === undefined) return `<span class="badge running">${turn.status === "error" ? "error, running" : "running"}</span>`
  return [
    `<span class="badge ${s.isError ? "error" : "ok"}">${
      escapeHtml(s.isError ? `failed: ${s.subtype === "success" ? s.terminalReason ?? "error" : s.subtype}` : "ok")
    }</span>`,
    `<span class="duration" title="duration (API ${s.durationApiMs === undefined ? "?" : seconds(s.durationApiMs)})">${seconds(s.durationMs)}</span>`,
    `<span class="tokens" title="input, output, cache read, cache creation">${s.inputTokens} in · ${s.outputTokens} out · ${s.cacheReadTokens} cache read · ${s.cacheCreationTokens} cache write</span>`,
    `<span class="cost" title="session total ${usd(s.totalCostUsd)}">${usd(s.costUsd)}</span>`,
    s.terminalReason === undefined ? "" : `<span class="dim">${escapeHtml(s.terminalReason)}</span>`
  ].join("")
}

const prompt = (turn: Timeline.Turn): string =>
  turn.origin === undefined
    ? `<div class="prompt">${block(turn.prompt)}</div>`
    : `<div class="prompt cli"><span class="dim">started by the CLI, not by a prompt (${escapeHtml(turn.origin)})</span></div>`

/**
 * One turn as a `<section id="turn-N">`.
 *
 * @since 0.2.0
 * @category rendering
 */
export const renderTurn = (turn: Timeline.Turn): string => {
  const items: Array<string> = []
  for (const it of turn.items) items.push(item(it, turn.ts))
  return `<section class="turn ${turn.status}" id="turn-${turn.index}"><h2>Turn ${turn.index}${turn.ts === undefined ? "" : `<span class="at">${clock(turn.ts)}</span>`}${summary(turn.summary, turn)}</h2>${prompt(turn)}${items.join("")}</section>`
}

/**
 * The session's information, totals and preamble (`<section id="turn-0">`).
 *
 * @since 0.2.0
 * @category rendering
 */
export const renderHead = (timeline: Timeline.Timeline): string => {
  const s = timeline.session
  const errors = timeline.turns.filter((t) => t.status === "error").length
  const facts: Array<string> = [
    `${timeline.turns.length} turns`,
    `${errors} failed`,
    `total ${usd(timeline.totalCostUsd)}`,
    `${timeline.lines} lines`
  ]
  if (s.model !== undefined) facts.push(`model ${escapeHtml(s.model)}`)
  if (s.cliVersion !== undefined) facts.push(`CLI ${escapeHtml(s.cliVersion)}`)
  if (s.permissionMode !== undefined) facts.push(`mode ${escapeHtml(s.permissionMode)}`)
  if (s.sessionId !== undefined) facts.push(`session ${escapeHtml(s.sessionId)}`)
  const preamble = timeline.preamble.length === 0 ? "" :
    `<details class="preamble"><summary>before the first prompt: ${timeline.preamble.length} items</summary>${
      timeline.preamble.map((it) => item(it, undefined)).join("")
    }</details>`
  return `<section id="turn-0" class="head"><p class="facts">${facts.map((f) => `<span>${f}</span>`).join(" · ")}</p>${
    s.cwd === undefined ? "" : `<p class="dim">cwd ${escapeHtml(s.cwd)}</p>`
  }${preamble}</section>`
}

const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--dim:#6e7781;--line:#d0d7de;--ok:#1a7f37;--err:#cf222e;--warn:#9a6700;--box:#f6f8fa}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--dim:#8b949e;--line:#30363d;--ok:#3fb950;--err:#f85149;--warn:#d29922;--box:#161b22}}
body{margin:0 auto;max-width:1100px;padding:12px 20px;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,sans-serif}
h1{font-size:18px;margin:4px 0}h2{font-size:15px;margin:0 0 6px;display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}
pre{margin:4px 0;padding:6px 8px;background:var(--box);border-radius:4px;white-space:pre-wrap;word-break:break-word;font:12px/1.4 ui-monospace,monospace}
summary{cursor:pointer;font:12px ui-monospace,monospace;padding:2px 0}
.turn{border:1px solid var(--line);border-left:4px solid var(--ok);border-radius:6px;padding:8px 12px;margin:10px 0;content-visibility:auto;contain-intrinsic-size:auto 300px}
.turn.error{border-left-color:var(--err)}.turn.running{border-left-color:var(--warn)}
.item{margin:6px 0 6px 12px;padding-left:8px;border-left:2px solid var(--line)}
.item.error,.item.problem,.result.error{border-left-color:var(--err)}.item.error pre,.item.problem pre{color:var(--err)}
.item.permission,.item.hook{border-left-color:var(--warn)}.item.thinking pre{font-style:italic;color:var(--dim)}
.item::before,.prompt::before,.result::before{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:var(--dim);margin-right:6px}
.prompt::before{content:"user"}.prompt.cli::before{content:"CLI"}.item.text::before{content:"assistant"}.item.text.sub::before{content:"assistant (subagent)"}.item.thinking::before{content:"thinking"}
.item.thinking.sub::before{content:"thinking (subagent)"}.item.tool.sub::before{content:"tool (subagent)"}.item.sub{border-left-style:dashed}
.item.tool::before{content:"tool"}.result::before{content:"result"}.result.error::before{content:"error"}.item.permission::before{content:"permission"}
.item.hook::before{content:"hook"}.item.control.send::before{content:"control → CLI"}.item.control.recv::before{content:"control ← CLI"}
.item.system::before{content:"system"}.item.error::before{content:"error"}.item.problem::before{content:"protocol problem"}
.item.system details{display:inline}.item>b{margin-right:6px}
.result{margin:4px 0 0 8px}.label{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:var(--dim);margin-right:6px}
.at{font:11px ui-monospace,monospace;color:var(--dim);margin-right:6px}.dim{color:var(--dim);font-size:12px}
.badge{font-size:11px;padding:1px 6px;border-radius:8px;border:1px solid var(--line)}
.badge.ok,.badge.allow,.badge.continue{color:var(--ok)}.badge.error,.badge.deny,.badge.stop{color:var(--err)}.badge.running,.badge.pending,.badge.ask{color:var(--warn)}.badge.cancelled{color:var(--dim)}.turn.cancelled{border-left-color:var(--line)}
.prompt pre{background:transparent;border:1px solid var(--line)}.cost{font-weight:600}.facts span{white-space:nowrap}
nav{display:flex;gap:8px;align-items:center;position:sticky;top:0;background:var(--bg);padding:4px 0;border-bottom:1px solid var(--line)}
button{font:12px system-ui;padding:2px 8px}`

const SCRIPT = `(function(){
var all=function(open){document.querySelectorAll("details").forEach(function(d){d.open=open})};
document.getElementById("expand").onclick=function(){all(true)};
document.getElementById("collapse").onclick=function(){all(false)};
var body=document.body;if(body.dataset.follow!=="1"||typeof EventSource==="undefined")return;
var live=document.getElementById("live");live.textContent="following";
var es=new EventSource("events?v="+body.dataset.version+"&e="+encodeURIComponent(body.dataset.epoch||""));
es.onopen=function(){live.textContent="following"};
es.onmessage=function(e){var m=JSON.parse(e.data);if(m.reload){location.reload();return}var near=window.innerHeight+window.scrollY>=document.body.scrollHeight-80;
m.parts.forEach(function(p){var t=document.createElement("template");t.innerHTML=p.html;var el=document.getElementById(p.id);
if(el)el.replaceWith(t.content);else document.getElementById("turns").appendChild(t.content)});
body.dataset.version=m.version;if(near)window.scrollTo(0,document.body.scrollHeight)};
es.onerror=function(){live.textContent="following (reconnecting)"};
})();`

const sha256 = (text: string): string => `'sha256-${Crypto.createHash("sha256").update(text).digest("base64")}'`

/**
 * Options of {@link renderPage}.
 *
 * @since 0.2.0
 * @category rendering
 */
export interface PageOptions {
  /** The page's title (the transcript's file name). */
  readonly title: string
  /** Connects to `events` on the page's own server and applies the updates it sends. */
  readonly follow?: { readonly version: number; readonly epoch?: string | undefined } | undefined
}

/**
 * The whole page. Without `follow` it reaches nothing at all (`connect-src 'none'`): the file
 * written by `--html` opens offline.
 *
 * @since 0.2.0
 * @category rendering
 */
export const renderPage = (timeline: Timeline.Timeline, options: PageOptions): string => {
  const csp = [
    "default-src 'none'",
    `style-src ${sha256(STYLE)}`,
    `script-src ${sha256(SCRIPT)}`,
    `connect-src ${options.follow === undefined ? "'none'" : "'self'"}`,
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'"
  ].join("; ")
  const turns: Array<string> = []
  for (const turn of timeline.turns) turns.push(renderTurn(turn))
  const follow = options.follow === undefined
    ? ""
    : ` data-follow="1" data-version="${options.follow.version}" data-epoch="${escapeHtml(options.follow.epoch ?? "")}"`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(options.title)} · effect-claude-code timeline</title>
<style>${STYLE}</style></head>
<body${follow}><nav><h1>${escapeHtml(options.title)}</h1><button id="expand">expand all</button><button id="collapse">collapse all</button><span id="live" class="dim"></span></nav>
<main id="turns">${renderHead(timeline)}${turns.join("\n")}</main>
<script>${SCRIPT}</script></body></html>
`
}
