import type { Sql } from '../../db/connect.ts'
import { iso } from '../../http/envelope.ts'
import { conflict, notFound } from '../../http/errors.ts'
import { courseAccess, type CurrentUser } from '../../http/guards.ts'
import { newId } from '../../lib/ids.ts'
import type { Logger } from '../../lib/log.ts'
import type { StoredFileMeta } from '../../storage/download.ts'
import type { FileStorage, StoredFile } from '../../storage/storage.ts'
import { checkUpload, cleanContentType, cleanFileName } from '../../storage/upload.ts'
import type { ResourceForm, ResourceQuery } from './model.ts'
import * as q from './queries.ts'

export const resourceFileUrl = (id: string) => `/api/v1/resources/${id}/file`

// The one place rows become API objects.
export const toResource = (r: q.ResourceRow) => ({
  id: r.id,
  courseId: r.course_id,
  name: r.name,
  type: r.resource_type,
  category: r.category,
  externalUrl: r.external_url,
  fileName: r.file_name,
  fileSize: r.file_size == null ? null : Number(r.file_size),
  contentType: r.content_type,
  fileUrl: r.resource_type === 'FILE' ? resourceFileUrl(r.id) : null,
  createdAt: iso(r.created_at)!,
})

const resourceNotFound = (message = 'This resource does not exist.') => notFound('RESOURCE_NOT_FOUND', message)

export async function createResource(
  sql: Sql,
  storage: FileStorage,
  args: { courseId: string; teacherId: string; form: ResourceForm; maxUploadBytes: number; now: Date },
) {
  const { form } = args
  let stored: StoredFile | null = null
  if (form.file) {
    checkUpload(form.file, 'file', args.maxUploadBytes)
    stored = form.file
  }
  try {
    const row = await q.insertResource(sql, {
      id: newId(),
      courseId: args.courseId,
      name: form.name,
      type: form.type,
      category: form.category || null,
      externalUrl: form.externalUrl ?? null,
      file:
        stored && form.file
          ? {
              storageKey: stored.key,
              fileName: cleanFileName(form.file.name),
              fileSize: stored.size,
              contentType: cleanContentType(form.file.type),
            }
          : null,
      createdBy: args.teacherId,
      now: args.now,
    })
    return toResource(row)
  } catch (e) {
    if (stored) await storage.remove(stored.key)
    throw e
  }
}

export async function listResources(sql: Sql, courseId: string, query: ResourceQuery) {
  const filter = { type: query.type ?? null, category: query.category || null }
  const offset = (query.page - 1) * query.pageSize
  const [rows, total] = await Promise.all([
    q.listResources(sql, courseId, filter, query.pageSize, offset),
    q.countResources(sql, courseId, filter),
  ])
  return { items: rows.map(toResource), total }
}

/** A FILE resource's stored file, for members of its course. */
export async function resourceFile(sql: Sql, resourceId: string, user: CurrentUser): Promise<StoredFileMeta> {
  const r = await q.findResourceFile(sql, resourceId)
  if (!r) throw resourceNotFound()
  await courseAccess(sql, r.course_id, user, 'member')
  if (r.resource_type !== 'FILE' || !r.storage_key) {
    throw resourceNotFound(`This ${r.resource_type.toLowerCase()} resource has no file; open its externalUrl instead.`)
  }
  return { key: r.storage_key, fileName: r.file_name ?? 'file', size: Number(r.file_size ?? 0), contentType: r.content_type }
}

/**
 * Deletes the row, then (after it is committed) the stored file. The row is locked first, so
 * the usage count that follows sees every task that references it (a task being saved with it
 * holds a key-share lock on it), and of two parallel deletes the second finds nothing (404).
 */
export async function deleteResource(sql: Sql, storage: FileStorage, courseId: string, resourceId: string, log: Logger) {
  const result = await sql.begin(async (tx) => {
    if (!(await q.lockResource(tx, courseId, resourceId))) return null
    return q.deleteResource(tx, courseId, resourceId)
  })
  if (!result?.found) throw resourceNotFound('This resource does not exist in this course.')
  if (!result.deleted) {
    throw conflict('CONFLICT', `This resource is used by ${result.used_by} learning task(s); change those tasks first.`)
  }
  if (result.storage_key) {
    // The row is gone either way; a file that cannot be removed is only an orphan on disk.
    await storage.remove(result.storage_key).catch((e) => log.warn('stored file not removed', { key: result.storage_key, error: String(e) }))
  }
  return { id: resourceId }
}
