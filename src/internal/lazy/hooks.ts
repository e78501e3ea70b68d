/**
 * What a session takes from `Hooks.ts` when it loads it on request (`import()`, see
 * `internal/services.ts`): a module of its own, so that a bundler keeps only these exports of it.
 */
export { bind, deadlineOf, empty } from "../../Hooks.ts"
