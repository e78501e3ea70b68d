#!/usr/bin/env node
/**
 * The package's executable, `npx effect-claude-code view <transcript.ndjson>` (see
 * `viewer/command.ts`). Runs on Node with `@effect/platform-node`, an optional peer: this file
 * only checks that it can be found from here, then loads the command (`viewer/main.ts`). Without
 * it, the command says in one line what to install and exits 1, rather than fail with Node's
 * `ERR_MODULE_NOT_FOUND` and its stack; any other failure to load (the package there but broken)
 * is Node's, as it is.
 *
 * @since 0.2.0
 */

const platform = "@effect/platform-node"

/** Whether `@effect/platform-node` resolves from this file (as from the command's own files). */
const platformInstalled = (): boolean => {
  try {
    import.meta.resolve(`${platform}/NodeRuntime`)
    return true
  } catch (error) {
    if ((error as { readonly code?: unknown } | null)?.code === "ERR_MODULE_NOT_FOUND") return false
    throw error
  }
}

if (platformInstalled()) {
  await import("./viewer/main.ts")
} else {
  process.stderr.write(
    `effect-claude-code: the command needs ${platform}, an optional peer dependency that is not installed: npm install ${platform}\n`
  )
  process.exitCode = 1
}
