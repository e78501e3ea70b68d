/**
 * Files readable by their owner only: a transcript, or its timeline page, is the whole
 * conversation, with tool outputs and file contents.
 */
import * as Fs from "node:fs"

/**
 * Opens `path` for writing, readable by its owner only: a new file is created 0600, an existing
 * one is made 0600 before it is truncated, so its old mode never covers the new text. What is not
 * a regular file (`/dev/stdout`, a pipe) is written as it is, its mode left alone. `claim`, given
 * the opened file's stat before anything is changed, may refuse it by throwing (the file is then
 * closed untouched).
 */
export const openOwnerOnly = async (
  path: string,
  claim?: (stat: Fs.Stats) => void
): Promise<Fs.promises.FileHandle> => {
  const handle = await Fs.promises.open(path, Fs.constants.O_WRONLY | Fs.constants.O_CREAT, 0o600)
  try {
    const stat = await handle.stat()
    claim?.(stat)
    if (stat.isFile()) {
      if ((stat.mode & 0o777) !== 0o600) await handle.chmod(0o600)
      await handle.truncate(0)
    }
    return handle
  } catch (error) {
    await handle.close()
    throw error
  }
}

/** Writes `text` to `path` as {@link openOwnerOnly} opens it. */
export const writeOwnerOnly = async (path: string, text: string): Promise<void> => {
  const handle = await openOwnerOnly(path)
  try {
    await handle.writeFile(text)
  } finally {
    await handle.close()
  }
}
