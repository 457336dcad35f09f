import type { Sql, TxSql } from './connect.ts'

/**
 * The students of one chunk of a background fan-out (runner.ts): user ids after `after` (null:
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
 * The last student of the next chunk of `size` after `after`, or null when no more than `size`
 * remain (the chunk then runs to the end). An index-only scan of course_members' primary key.
 */
export async function chunkEnd(tx: TxSql, courseId: string, after: string | null, size: number): Promise<string | null> {
  const [row] = await tx<{ user_id: string }[]>`
    select m.user_id from course_members m
     where m.course_id = ${courseId} ${after === null ? tx`` : tx`and m.user_id > ${after}::uuid`}
     order by m.user_id
    offset ${size - 1} limit 1`
  if (!row) return null
  // Exactly `size` left: this chunk reaches the last student, so it is the final one.
  const [more] = await tx`select 1 from course_members m where m.course_id = ${courseId} and m.user_id > ${row.user_id}::uuid limit 1`
  return more ? row.user_id : null
}

/** Students of the course, from its counter row (sql/034): one keyed read, whatever the size. */
export async function studentCount(tx: Sql | TxSql, courseId: string): Promise<number> {
  const [row] = await tx<{ n: number }[]>`select students as n from course_counters where course_id = ${courseId}`
  return row?.n ?? 0
}
