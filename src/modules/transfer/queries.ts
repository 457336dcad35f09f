import type { Sql } from '../../db/connect.ts'

export interface ImportRow {
  id: string
  teacher_id: string
  state: 'QUEUED' | 'RUNNING' | 'DONE' | 'FAILED'
  progress: number
  storage_key: string | null
  file_name: string
  file_size: string
  shift_days: number
  course_id: string | null
  report: unknown
  error: { code: number; message: string } | null
  attempts: number
  created_at: Date
}

const COLUMNS = ['id', 'teacher_id', 'state', 'progress', 'storage_key', 'file_name', 'file_size', 'shift_days', 'course_id', 'report', 'error', 'attempts', 'created_at'] as const

export async function insertImport(sql: Sql, r: { id: string; teacherId: string; key: string; fileName: string; fileSize: number; shiftDays: number; now: Date }) {
  const [row] = await sql<ImportRow[]>`
    insert into course_imports (id, teacher_id, storage_key, file_name, file_size, shift_days, created_at, updated_at)
    values (${r.id}, ${r.teacherId}, ${r.key}, ${r.fileName}, ${r.fileSize}, ${r.shiftDays}, ${r.now}, ${r.now})
    returning ${sql(COLUMNS)}`
  return row!
}

export async function findImport(sql: Sql, id: string) {
  const [row] = await sql<ImportRow[]>`select ${sql(COLUMNS)} from course_imports where id = ${id}`
  return row ?? null
}

/**
 * Claims the oldest due import for `leaseMs`: a queued one, or a running one whose lease ran out
 * (its instance stopped). Rows another runner is claiming are skipped (SKIP LOCKED); the claim
 * commits at once, so no transaction stays open while the package is read.
 */
export async function claimImport(sql: Sql, now: Date, leaseMs: number) {
  const [row] = await sql<(ImportRow & { locale: string | null })[]>`
    with due as (
      select id from course_imports
       where state in ('QUEUED', 'RUNNING') and (lease_until is null or lease_until <= ${now})
       order by created_at
       limit 1
         for update skip locked
    )
    update course_imports i
       set state = 'RUNNING', lease_until = ${new Date(now.getTime() + leaseMs)}, attempts = i.attempts + 1, progress = 0, updated_at = ${now}
      from due
     where i.id = due.id
    returning ${sql(COLUMNS.map((c) => `i.${c}`) as unknown as string[])},
              (select locale from users u where u.id = i.teacher_id) as locale`
  return row ?? null
}

/** Progress and a longer lease, only while this attempt still holds the row. */
export async function markProgress(sql: Sql, id: string, attempt: number, progress: number, now: Date, leaseMs: number) {
  await sql`
    update course_imports set progress = ${progress}, lease_until = ${new Date(now.getTime() + leaseMs)}, updated_at = ${now}
     where id = ${id} and state = 'RUNNING' and attempts = ${attempt}`
}

export async function markDone(sql: Sql, id: string, attempt: number, courseId: string, report: unknown, now: Date) {
  const rows = await sql`
    update course_imports set state = 'DONE', progress = 100, course_id = ${courseId}, report = ${sql.json(report as any)},
                              storage_key = null, lease_until = null, updated_at = ${now}
     where id = ${id} and state = 'RUNNING' and attempts = ${attempt}
    returning id`
  return rows.length > 0
}

export async function markFailed(sql: Sql, id: string, error: { code: number; message: string }, now: Date) {
  await sql`
    update course_imports set state = 'FAILED', error = ${sql.json(error)}, storage_key = null, lease_until = null, updated_at = ${now}
     where id = ${id} and state in ('QUEUED', 'RUNNING')`
}
