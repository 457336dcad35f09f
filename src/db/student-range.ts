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
 * The last student of the next chunk of `size` after `after`, or null when no more than `size`
 * remain (the chunk then runs to the end): the chunk's last key and the one after it, in one
 * index-only scan of course_members' primary key.
 */
export async function chunkEnd(tx: TxSql, courseId: string, after: string | null, size: number): Promise<string | null> {
  const rows = await tx<{ user_id: string }[]>`
    select m.user_id from course_members m
     where m.course_id = ${courseId} ${after === null ? tx`` : tx`and m.user_id > ${after}::uuid`}
     order by m.user_id
    offset ${size - 1} limit 2`
  return rows.length === 2 ? rows[0]!.user_id : null
}

/** Students of the course, from its counter rows (sql/046): at most 16 keyed rows, whatever the size. */
export async function studentCount(tx: Sql | TxSql, courseId: string): Promise<number> {
  const [row] = await tx<{ n: number }[]>`select ${studentCountOf(tx, courseId)} as n`
  return row!.n
}
