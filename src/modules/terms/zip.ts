import { makeZip } from 'client-zip'
import type { Sql } from '../../db/connect.ts'
import { notFound } from '../../http/errors.ts'
import { iso } from '../../http/envelope.ts'
import { cleanFileName } from '../../storage/upload.ts'
import type { FileStorage } from '../../storage/storage.ts'
import { toCsv } from '../grades/csv.ts'
import { experimentOfCourse, newestSubmissions, type NewestSubmissionRow } from './queries.ts'

/** A path segment that cannot climb or nest: no separators, no control characters, never only dots. */
export function zipSegment(raw: string): string {
  const cleaned = cleanFileName(raw).replace(/[/\\:*?"<>|]/g, '_')
  return /^\.*$/.test(cleaned) ? `_${cleaned}` : cleaned
}

const entryName = (r: NewestSubmissionRow) => `${zipSegment(r.username)}/${zipSegment(r.file_name)}`

export function archiveFileName(experimentTitle: string, now: Date) {
  const title = experimentTitle.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_').trim().slice(0, 100) || 'experiment'
  return `submissions-${title}-${now.toISOString().slice(0, 10)}.zip`
}

/** Bytes read from a local file at a time. */
const READ_CHUNK = 64 * 1024

/**
 * A local file read a chunk at a time, only as fast as the zip is consumed (a pull stream with
 * no read-ahead): Bun's own file stream reads ahead in large blocks.
 */
function chunksOf(file: Blob): ReadableStream<Uint8Array> {
  let offset = 0
  return new ReadableStream<Uint8Array>(
    {
      async pull(c) {
        if (offset >= file.size) return c.close()
        const end = Math.min(file.size, offset + READ_CHUNK)
        c.enqueue(new Uint8Array(await file.slice(offset, end).arrayBuffer()))
        offset = end
      },
    },
    { highWaterMark: 0 },
  )
}

/**
 * Every student's newest file of the experiment as `{username}/{cleaned name}`, plus
 * `submissions.csv`, as a zip stream (client-zip, stored entries: submissions are mostly
 * compressed formats already). The rows (a few hundred bytes per student) are read first; each
 * file is opened only when the zip reaches it and streamed through, so memory holds one chunk
 * of one file at a time whatever the total. A file missing from the storage is left out and
 * its CSV row says so.
 */
export async function submissionsZip(sql: Sql, storage: FileStorage, courseId: string, experimentId: string, now: Date) {
  const experiment = await experimentOfCourse(sql, courseId, experimentId)
  if (!experiment) throw notFound('EXPERIMENT_NOT_FOUND', 'This experiment does not exist in this course.')
  const rows = [...(await newestSubmissions(sql, courseId, experimentId))]
  const csv = toCsv([
    ['Username', 'Display name', 'Submitted at', 'Late', 'Score', 'File name'],
    ...rows.map((r) => [r.username, r.display_name, iso(r.submitted_at), r.late ? 'yes' : 'no', r.score === null ? null : Number(r.score), entryName(r)]),
  ])
  async function* entries() {
    yield { name: 'submissions.csv', input: csv, lastModified: now }
    for (const r of rows) {
      const body = await storage.open(r.storage_key)
      if (!body) continue
      yield { name: entryName(r), input: body instanceof Blob ? chunksOf(body) : body, lastModified: r.submitted_at, size: Number(r.file_size) }
    }
  }
  return { fileName: archiveFileName(experiment.title, now), body: makeZip(entries()) }
}
