import type { Sql, TxSql } from './connect.ts'
import { studentCountOf } from './student-count.ts'

/**
 * The students of one chunk of the background fan-out (src/fanout.ts): user ids after `after` (null:
 * from the first) up to and including `upTo` (null: to the last), in course_members' key order.
 */
export interface StudentRange {
  after: string | null
  upTo: string | null
}

/** `and <column> > after and <column> <= upTo`, the bounds that are set. */
export const inRange = (sql: Sql | TxSql, column: ReturnType<TxSql>, r: StudentRange) =>
  sql`${r.after === null ? sql`` : sql`and ${column} > ${r.after}::uuid`} ${r.upTo === null ? sql`` : sql`and ${column} <= ${r.upTo}::uuid`}`

/**
 * The next chunk of `size` students after `after` within a part that ends at `until` (its last
 * student; null: the end of the course): the chunk's last key, and whether the chunk finishes the
 * part. Its last key and the one after it, in one index-only scan of course_members' primary key.
 */
export async function nextChunk(tx: TxSql, courseId: string, after: string | null, until: string | null, size: number): Promise<{ upTo: string | null; last: boolean }> {
  const rows = await tx<{ user_id: string }[]>`
    select m.user_id from course_members m
     where m.course_id = ${courseId} ${inRange(tx, tx`m.user_id`, { after, upTo: until })}
     order by m.user_id
    offset ${size - 1} limit 2`
  return rows.length === 2 ? { upTo: rows[0]!.user_id, last: false } : { upTo: until, last: true }
}

/** A course and its number of students, as the request that queues a fan-out read them. */
export interface CourseSize {
  courseId: string
  students: number
}

/**
 * The course's students cut into `parts` ranges of about the same size, in course_members' key
 * order: each part's (after, upTo], the first from the first student, the last to the end; fewer
 * parts when the course has fewer students than parts. Each cut is the end of a chunk from the
 * cut before (`nextChunk`: an index-only walk, 50,000 keys ~3 ms; a window over all of them took
 * 20 ms).
 */
export async function partsOf(tx: TxSql, course: CourseSize, parts: number): Promise<StudentRange[]> {
  const cuts: string[] = []
  const step = Math.max(1, Math.ceil(course.students / parts))
  while (cuts.length < parts - 1) {
    const chunk = await nextChunk(tx, course.courseId, cuts.at(-1) ?? null, null, step)
    if (chunk.last) break
    cuts.push(chunk.upTo!)
  }
  return [...cuts, null].map((upTo, i) => ({ after: i === 0 ? null : cuts[i - 1]!, upTo }))
}

/** The ranges as rows `p (after_user, up_to_user, part)`, part from 1, for the FROM of an INSERT … SELECT. */
export const partRows = (sql: Sql | TxSql, ranges: StudentRange[]) =>
  sql`unnest(${ranges.map((r) => r.after)}::uuid[], ${ranges.map((r) => r.upTo)}::uuid[]) with ordinality as p (after_user, up_to_user, part)`

/** Students of the course, from its counter rows (sql/046): at most 16 keyed rows, whatever the size. */
export async function studentCount(tx: Sql | TxSql, courseId: string): Promise<number> {
  const [row] = await tx<{ n: number }[]>`select ${studentCountOf(tx, courseId)} as n`
  return row!.n
}
