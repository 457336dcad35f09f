import type { Sql, TxSql } from './connect.ts'

/** The sum itself, as `students`: the one text of both forms. */
const summed = (sql: Sql | TxSql, course: string | ReturnType<TxSql>) =>
  sql`select coalesce(sum(scc.students), 0)::int as students from course_student_counts scc where scc.course_id = ${course}`

/**
 * A course's number of students as a scalar subquery: its counter rows (sql/046, at most 16,
 * keyed), summed. `course` is a column of the calling statement (`sql\`c.id\``) or a course id.
 *
 * Written out instead of calling course_student_count() (sql/046): PostgreSQL does not inline a
 * SQL function with an aggregate, and a function that is not inlined is planned again on every
 * execution of the statement that calls it, prepared or not. GET /courses' statement for a
 * student of one course: 5,100-5,400 executions/s with the call, 8,200-8,400 written out
 * (pgbench, one client, the mooc bench database).
 */
export const studentCountOf = (sql: Sql | TxSql, course: string | ReturnType<TxSql>) => sql`(${summed(sql, course)})`

/**
 * The same count as `cs.students` for a FROM list whose course is `course` (`sql\`c.id\``): an
 * aggregate in a lateral subquery, computed once per course. Written as
 * `cross join lateral (select <studentCountOf> as students) cs`, PostgreSQL pulled the subquery up
 * and ran the scalar subquery once for each column naming `cs.students` (GET /courses' member_count
 * and student_count: two SubPlans).
 */
export const studentCountLateral = (sql: Sql | TxSql, course: ReturnType<TxSql>) => sql`cross join lateral (${summed(sql, course)}) cs`
