/**
 * Effect's schema JIT compiler (`effect/schema/SchemaJITCompiler`: with its code generator, four
 * modules and ~50 KB of JavaScript), loaded apart from the protocol, so that importing the library
 * does not load it. The guards of `protocol/codec.ts` use it once it is loaded, and the interpreter
 * until then (the same answers, about ten times slower): the first guard that finds it missing
 * starts loading it (`import()`), and a session loads it while the CLI starts, then compiles its
 * decoders (`sessionEngine.ts`, then `prepareDecoders`). A program that decodes in one synchronous run (a
 * micro-benchmark) waits for {@link load} first.
 */
import * as Effect from "effect/Effect"
import type * as SchemaJITCompiler from "effect/schema/SchemaJITCompiler"

let compiler: typeof SchemaJITCompiler | undefined
let loading: Promise<void> | undefined

/** Loads the compiler, once; settles when it is loaded, or could not be (the guards stay interpreted). */
const start = (): Promise<void> =>
  loading ??= import("effect/schema/SchemaJITCompiler").then(
    (module) => {
      compiler = module
    },
    () => undefined
  )

/** The compiler, once loaded (nothing else). */
export const loaded = (): typeof SchemaJITCompiler | undefined => compiler

/** The compiler, once loaded; until then `undefined`, and the loading is started. */
export const get = (): typeof SchemaJITCompiler | undefined => {
  // `start` never rejects (a failed import leaves the guards interpreted): nothing to handle.
  if (compiler === undefined) void start()
  return compiler
}

/** Waits for the compiler to be loaded (at once when it is). */
export const load: Effect.Effect<void> = Effect.suspend(() => compiler !== undefined ? Effect.void : Effect.promise(start))
