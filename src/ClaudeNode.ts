/**
 * The real `claude` CLI on Node, ready to use: {@link layer} is the process transport
 * (`Claude.layerProcess`) with the Node services it needs (`NodeServices.layer` from
 * `@effect/platform-node`) already provided, so a program needs nothing else.
 *
 * This module is the `effect-claude-code/node` entry, and the only one that imports
 * `@effect/platform-node` (an optional peer): the main entry stays free of it, for programs that
 * bring their own `ChildProcessSpawner` or use the fakes of `effect-claude-code/testing`.
 *
 * ```ts
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import * as Console from "effect/Console"
 * import * as Effect from "effect/Effect"
 * import { Claude } from "effect-claude-code"
 * import { ClaudeNode } from "effect-claude-code/node"
 *
 * Claude.query("Say hello").pipe(
 *   Effect.flatMap((result) => Console.log(result.result)),
 *   Effect.provide(ClaudeNode.layer),
 *   NodeRuntime.runMain
 * )
 * ```
 *
 * @since 0.2.0
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Layer from "effect/Layer"
import * as Claude from "./Claude.ts"
import type { Transport } from "./Transport.ts"

/**
 * The process transport with Node's services: sessions spawn the real `claude` CLI as a child
 * process. Provide it to `Claude.open`, `Claude.query`, `ClaudeSession.layer`, ...
 *
 * **Details**
 *
 * `Claude.layerProcess` provided with `NodeServices.layer` (child processes, file system, path).
 * Those services stay inside: the layer provides `Transport` only.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer: Layer.Layer<Transport> = Claude.layerProcess.pipe(Layer.provide(NodeServices.layer))
