import type { FileStorage, StoredFile } from '../../storage/storage.ts'
import { readPackage, readText, type PackageKind } from './archive.ts'
import { ImportFailure } from './failure.ts'

/** The package's documents, by path (XML and HTML: small, kept in memory to be mapped). */
export type Texts = Map<string, string>

const TEXT = /\.(xml|html?|xhtml|qti)$/i
/** One document at most; all documents together at most TEXT_TOTAL (the rest of a package is files, streamed to storage). */
const TEXT_MAX = 16 * 1024 * 1024
const TEXT_TOTAL = 48 * 1024 * 1024

/**
 * One pass over the package: documents into memory (capped), every other entry streamed into
 * the file storage under a new key (never by its name). Returns both; the caller removes the
 * stored files the plan does not use.
 */
export async function scanPackage(
  path: string,
  kind: PackageKind,
  storage: FileStorage,
  opts: { maxExtractedBytes: number; onProgress: (share: number) => void },
): Promise<{ texts: Texts; files: Map<string, StoredFile> }> {
  const texts: Texts = new Map()
  const files = new Map<string, StoredFile>()
  let textBytes = 0
  try {
    await readPackage(path, kind, { maxExtractedBytes: opts.maxExtractedBytes, onProgress: opts.onProgress }, async (e) => {
      if (TEXT.test(e.name)) {
        const body = await readText(e.stream, TEXT_MAX)
        textBytes += body.length
        if (textBytes > TEXT_TOTAL) throw new ImportFailure('IMPORT_TOO_LARGE', 'The documents of the package are larger than the import limit; nothing was imported.')
        texts.set(e.name, body)
        return
      }
      const previous = files.get(e.name)
      const stored = await storage.put(e.stream as AsyncIterable<Uint8Array>)
      files.set(e.name, stored)
      if (previous) await storage.remove(previous.key)
    })
  } catch (err) {
    await Promise.allSettled([...files.values()].map((f) => storage.remove(f.key)))
    throw err
  }
  return { texts, files }
}
