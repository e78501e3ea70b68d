/**
 * The real `claude` CLI on Node, ready to use: {@link layer} is the process transport
 * (`Claude.layerProcess`), {@link layerSessions} the CLI's sessions on Node's file system, and
 * {@link runMain} runs a program with the transport provided, so a program needs nothing else.
 *
 * This module is the `effect-claude-code/node` entry, and the only one that imports
 * `@effect/platform-node` (an optional peer): the main entry stays free of it, for programs that
 * use the fakes of `effect-claude-code/testing`.
 *
 * ```ts
 * import * as Console from "effect/Console"
 * import * as Effect from "effect/Effect"
 * import { Claude } from "effect-claude-code"
 * import { ClaudeNode } from "effect-claude-code/node"
 *
 * ClaudeNode.runMain(Claude.query("Say hello").pipe(Effect.flatMap((result) => Console.log(result.result))))
 * ```
 *
 * @since 0.2.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import type * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Claude from "./Claude.ts"
import type * as SessionStore from "./SessionStore.ts"
import type * as Sessions from "./Sessions.ts"
import type { Transport } from "./Transport.ts"

/**
 * The process transport: sessions spawn the real `claude` CLI as a child process. Provide it to `Claude.open`, `Claude.query`, `ClaudeSession.layer`, ...
 *
 * **Details**
 *
 * `Claude.layerProcess`, which spawns with `node:child_process` and needs no service.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer: Layer.Layer<Transport> = Claude.layerProcess

/**
 * The sessions the CLI keeps on this machine (`Sessions.layerDisk`: its config directory, from
 * `CLAUDE_CONFIG_DIR` or `~/.claude`) on Node's file system: list, read, rename, tag, fork and
 * delete them.
 *
 * **Details**
 *
 * Its modules (`Sessions`, the session store, Node's file system) are loaded when the layer is
 * built, not when this entry is imported.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerSessions: Layer.Layer<Sessions.Sessions | SessionStore.SessionStore, Config.ConfigError> = Layer.unwrap(
  // Loaded when the layer is built, not when this entry is imported: the sessions on disk (with
  // `effect/Config`, `FileSystem` and `Path`) and Node's services (about a hundred modules) are
  // a quarter of this entry's own start-up, and a program that only runs sessions never uses them.
  Effect.map(
    Effect.promise(() => Promise.all([import("./Sessions.ts"), import("@effect/platform-node/NodeServices")])),
    ([SessionsModule, NodeServices]) => SessionsModule.layerDisk.pipe(Layer.provide(NodeServices.layer))
  )
)

/**
 * Runs `program` as the main program of a Node process with the real CLI: its `Scope` (the
 * sessions it opens) closed at its end, {@link layer} provided, and `NodeRuntime.runMain` from
 * `@effect/platform-node` doing the rest: an error or a defect is printed and the exit code is 1,
 * and Ctrl-C (SIGINT) or SIGTERM interrupts the program, which ends its turns and closes its
 * sessions (no CLI left behind) before the process exits.
 *
 * Services the program needs besides (`Hooks`, `Permissions`, `McpServers`, your own) are
 * provided before: `program.pipe(Effect.provide(Hooks.layer(...)), ClaudeNode.runMain)`.
 *
 * @since 0.2.0
 * @category running
 */
export const runMain = <A, E>(program: Effect.Effect<A, E, Transport | Scope.Scope>): void =>
  NodeRuntime.runMain(program.pipe(Effect.scoped, Effect.provide(layer)))
