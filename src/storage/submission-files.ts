import { z } from 'zod'
import type { Sql, TxSql } from '../db/connect.ts'
import { badRequest } from '../http/errors.ts'
import { newId } from '../lib/ids.ts'
import { DownloadQuery, type StoredFileMeta } from './download.ts'
import { checkUpload, cleanContentType, cleanFileName, type UploadedFile } from './upload.ts'

/**
 * The files of a submission (issue 29.7): homework answer sheets and experiment submissions take
 * one or more files. Rows of `submission_files` (sql/042), numbered by `position` from 1; an
 * experiment submission's first file lives in its own columns (position 1), the rest here.
 */
export type SubmissionKind = 'experiment' | 'learning'

/** Most files one submission takes (the whole body stays within MAX_UPLOAD_BYTES). */
export const MAX_FILES = 10

export const SubmissionFile = z
  .object({
    position: z.number().int().meta({ description: '1-based, in the order the files were sent.' }),
    fileName: z.string(),
    fileSize: z.number().int(),
    contentType: z.string(),
    fileUrl: z.string().meta({ description: 'Download path of this file (`?inline=1` previews the allow-listed types).' }),
  })
  .meta({ id: 'SubmissionFile' })
export type SubmissionFile = z.infer<typeof SubmissionFile>

/** `?position=n` (1-based, default 1) picks one file of a submission; `inline=1` previews it. */
export const SubmissionFileQuery = DownloadQuery.extend({
  position: z.coerce.number().int().min(1).max(100).optional(),
})

export interface FileRow {
  submission_id: string
  position: number
  storage_key: string
  file_name: string
  file_size: string | number
  content_type: string
}

export interface CleanFile {
  key: string
  name: string
  size: number
  type: string
}

/** Checks each upload (not empty, within the limit) and how many there are; names and types cleaned. */
export function cleanUploads(files: UploadedFile[], field: string, maxUploadBytes: number): CleanFile[] {
  if (files.length > MAX_FILES) throw badRequest(`${field}: at most ${MAX_FILES} files`, [{ field, message: `at most ${MAX_FILES} files` }])
  return files.map((f, i) => {
    checkUpload(f, files.length > 1 ? `${field}.${i}` : field, maxUploadBytes)
    return { key: f.key, name: cleanFileName(f.name), size: f.size, type: cleanContentType(f.type) }
  })
}

/** One INSERT for all the files of a submission, numbered from `first`. */
export async function insertFiles(tx: Sql | TxSql, kind: SubmissionKind, submissionId: string, files: CleanFile[], first: number) {
  if (!files.length) return
  const rows = files.map((f, i) => ({
    id: newId(),
    experiment_submission_id: kind === 'experiment' ? submissionId : null,
    learning_submission_id: kind === 'learning' ? submissionId : null,
    position: first + i,
    storage_key: f.key,
    file_name: f.name,
    file_size: f.size,
    content_type: f.type,
  }))
  await tx`insert into submission_files ${tx(rows, 'id', 'experiment_submission_id', 'learning_submission_id', 'position', 'storage_key', 'file_name', 'file_size', 'content_type')}`
}

/** The files of many submissions in one query (a page of submissions: no query per row). */
export async function filesOf(sql: Sql | TxSql, kind: SubmissionKind, ids: string[]): Promise<Map<string, FileRow[]>> {
  const out = new Map<string, FileRow[]>()
  if (!ids.length) return out
  const rows =
    kind === 'experiment'
      ? await sql<FileRow[]>`
          select experiment_submission_id as submission_id, position, storage_key, file_name, file_size, content_type
            from submission_files where experiment_submission_id = any(${ids}::uuid[]) order by 1, position`
      : await sql<FileRow[]>`
          select learning_submission_id as submission_id, position, storage_key, file_name, file_size, content_type
            from submission_files where learning_submission_id = any(${ids}::uuid[]) order by 1, position`
  for (const r of rows) {
    const list = out.get(r.submission_id) ?? []
    list.push(r)
    out.set(r.submission_id, list)
  }
  return out
}

/** One file of a submission by position, or null. */
export async function fileAt(sql: Sql, kind: SubmissionKind, submissionId: string, position: number) {
  const [row] =
    kind === 'experiment'
      ? await sql<FileRow[]>`
          select experiment_submission_id as submission_id, position, storage_key, file_name, file_size, content_type
            from submission_files where experiment_submission_id = ${submissionId} and position = ${position}`
      : await sql<FileRow[]>`
          select learning_submission_id as submission_id, position, storage_key, file_name, file_size, content_type
            from submission_files where learning_submission_id = ${submissionId} and position = ${position}`
  return row ?? null
}

export const toFile = (r: Pick<FileRow, 'position' | 'file_name' | 'file_size' | 'content_type'>, url: string): SubmissionFile => ({
  position: r.position,
  fileName: r.file_name,
  fileSize: Number(r.file_size),
  contentType: r.content_type,
  fileUrl: url,
})

/** What a download needs of a stored file row. */
export const storedMeta = (f: Pick<FileRow, 'storage_key' | 'file_name' | 'file_size' | 'content_type'>): StoredFileMeta => ({
  key: f.storage_key,
  fileName: f.file_name,
  size: Number(f.file_size),
  contentType: f.content_type,
})

/** Whether stored files and new uploads are the same list (names, sizes and types, in order): one attempt sent twice. */
export const sameFiles = (stored: FileRow[], sent: CleanFile[]) =>
  stored.length === sent.length &&
  stored.every((f, i) => f.file_name === sent[i]!.name && Number(f.file_size) === sent[i]!.size && f.content_type === sent[i]!.type)
