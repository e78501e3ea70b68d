/**
 * What a session takes from `Permissions.ts` when it loads it on request (`import()`, see
 * `internal/services.ts`): a module of its own, so that a bundler keeps only these exports of it.
 */
export { bind, deny, toWire } from "../../Permissions.ts"
