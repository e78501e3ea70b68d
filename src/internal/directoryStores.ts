/**
 * Which `SessionStore`s are directory stores (`SessionStore.makeDirectory`), and on which config
 * directory: a session must not mirror into the directory its own CLI writes (see `Claude.open`).
 *
 * @internal
 */
import * as Fs from "node:fs"
import * as Path from "node:path"

const directories = new WeakMap<object, string>()

/** @internal */
export const register = (store: object, configDir: string): void => {
  directories.set(store, Path.resolve(configDir))
}

const real = (dir: string): string => {
  try {
    return Fs.realpathSync.native(dir)
  } catch {
    return dir
  }
}

/** Whether `store` is a directory store (on any config directory): one file a session. @internal */
export const isDirectory = (store: object): boolean => directories.has(store)

/** Whether `store` is a directory store on `configDir` (an absolute path), symbolic links resolved. @internal */
export const isOn = (store: object, configDir: string): boolean => {
  const dir = directories.get(store)
  return dir !== undefined && real(dir) === real(Path.resolve(configDir))
}
