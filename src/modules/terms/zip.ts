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

interface Entry {
  name: string
  storage_key: string
  file_size: string
}

/**
 * A submission's files as `{username}/{cleaned name}`, in order (the first file, then the further
 * ones); a name the student already used gets ` (2)`, ` (3)`… before its extension.
 */
function entriesOf(r: NewestSubmissionRow): Entry[] {
  const taken = new Set<string>()
  return [r, ...r.more].map((f) => {
    const base = zipSegment(f.file_name)
    let name = base
    for (let n = 2; taken.has(name); n++) {
      const dot = base.lastIndexOf('.')
      name = dot > 0 ? `${base.slice(0, dot)} (${n})${base.slice(dot)}` : `${base} (${n})`
    }
    taken.add(name)
    return { name: `${zipSegment(r.username)}/${name}`, storage_key: f.storage_key, file_size: f.file_size }
  })
}

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
export function chunksOf(file: Blob): ReadableStream<Uint8Array> {
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
 * Every student's newest submission of the experiment, each of its files as `{username}/{cleaned name}`, plus
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
    ...rows.map((r) => [
      r.username,
      r.display_name,
      iso(r.submitted_at),
      r.late ? 'yes' : 'no',
      r.score === null ? null : Number(r.score),
      entriesOf(r)
        .map((e) => e.name)
        .join('; '),
    ]),
  ])
  async function* entries() {
    yield { name: 'submissions.csv', input: csv, lastModified: now }
    for (const r of rows) {
      for (const e of entriesOf(r)) {
        const body = await storage.open(e.storage_key)
        if (!body) continue
        yield { name: e.name, input: body instanceof Blob ? chunksOf(body) : body, lastModified: r.submitted_at, size: Number(e.file_size) }
      }
    }
  }
  return { fileName: archiveFileName(experiment.title, now), body: makeZip(entries()) }
}
