import { AppError, isStorageFull, storageFull, storageUnavailable } from '../http/errors.ts'
import type { Logger } from '../lib/log.ts'
import type { ByteRange, FileStorage, PutOptions, StoredFile, StoredObject } from './storage.ts'

/**
 * File storage that fails soft (issue 49): whatever the backend throws becomes an answer a client
 * can act on, never a 500 and never an exit. A full disk (ENOSPC, EDQUOT) → 507 50701; a bucket
 * that cannot be reached (refused, reset, timed out, or answering 5xx) → 503 50301 with
 * Retry-After. Our own errors (413 while streaming) pass unchanged. One structured warn line
 * per failure, without a stack.
 *
 * A download that fails after its headers were sent cannot change its status any more: the
 * stream is ended with an error (the client sees a short body, as after any cut connection) and
 * the failure is logged once here, instead of Bun printing the S3 client's error to stderr.
 */
export function guardStorage(inner: FileStorage, backend: 'local' | 's3', log: Logger): FileStorage {
  const translate = (operation: string, e: unknown): unknown => {
    if (e instanceof AppError) return e
    const fields = { backend, operation, code: (e as { code?: unknown })?.code, error: String((e as Error)?.message ?? e) }
    if (isStorageFull(e)) {
      log.warn('storage full', fields)
      return storageFull()
    }
    // Local disk errors other than a full disk are the process's own (permissions, a bug): 500.
    if (backend === 'local') return e
    log.warn('storage unavailable', fields)
    return storageUnavailable()
  }
  const guarded = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (e) {
      throw translate(operation, e)
    }
  }
  return {
    localRoot: inner.localRoot,
    put: (source, opts?: PutOptions): Promise<StoredFile> => guarded('put', () => inner.put(source, opts)),
    copy: (key) => guarded('copy', () => inner.copy(key)),
    remove: (key) => guarded('remove', () => inner.remove(key)),
    sweepTemp: (now) => guarded('sweepTemp', () => inner.sweepTemp(now)),
    async *list(): AsyncIterable<StoredObject> {
      try {
        yield* inner.list()
      } catch (e) {
        throw translate('list', e)
      }
    },
    open: (key: string, range?: ByteRange) =>
      guarded('open', async () => {
        const body = await inner.open(key, range)
        return body instanceof ReadableStream ? cutSoftly(body, (e) => void translate('download', e)) : body
      }),
  }
}

/** The same bytes; an error of the source ends the stream with an error, reported once through `report`. */
function cutSoftly(source: ReadableStream<Uint8Array>, report: (e: unknown) => void): ReadableStream<Uint8Array> {
  const reader = source.getReader()
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read()
          if (done) controller.close()
          else controller.enqueue(value)
        } catch (e) {
          report(e)
          controller.error(new Error('file storage failed mid-download'))
        }
      },
      cancel(reason) {
        return reader.cancel(reason).catch(() => {})
      },
    },
    { highWaterMark: 0 },
  )
}
