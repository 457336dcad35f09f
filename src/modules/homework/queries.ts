import type { Sql } from '../../db/connect.ts'
import { studentCountOf } from '../../db/student-count.ts'
import { myCourses } from '../courses/queries.ts'

export interface HomeworkRow {
  task_id: string
  course_id: string
  course_title: string
  title: string
  start_at: Date
  due_at: Date
  /** The caller teaches this course: the row is the teacher's view. */
  is_teacher: boolean
  /** The caller's newest submission (student rows only). */
  submitted_at: Date | null
  score: string | null
  /** Teacher rows only. */
  submitted_count: number | null
  student_count: number | null
}

/**
 * Every homework of the courses the user teaches or has joined (or of one of them), in one
 * query whatever the number of courses: the student's newest submission and the teacher's
 * counts come from lateral subqueries gated on the caller's role in each course.
 */
export async function listHomework(sql: Sql, userId: string, courseId: string | null) {
  return sql<HomeworkRow[]>`
    with my_courses as (${myCourses(sql, userId)})
    select t.id as task_id, t.course_id, mc.title as course_title, t.title, t.start_at, t.due_at, mc.is_teacher,
           mine.submitted_at, mine.score::text as score,
           counts.submitted_count, counts.student_count
      from my_courses mc
      join learning_tasks t on t.course_id = mc.id and t.task_kind = 'HOMEWORK'
                           and t.publish_state = 'PUBLISHED' -- drafts live in Manage only (issue 29.9)
      left join lateral (
        select s.submitted_at, s.score
          from learning_submissions s
         where not mc.is_teacher and s.task_id = t.id and s.student_id = ${userId}
         order by s.submitted_at desc, s.id desc
         limit 1
      ) mine on true
      left join lateral (
        -- The teacher-only counts test is_teacher inside each subquery, where it becomes a
        -- one-time filter: a student's rows never run them (see bench/RESULTS.md).
        select (select count(distinct s.student_id)::int
                  from learning_submissions s
                  join course_members m on m.course_id = t.course_id and m.user_id = s.student_id
                 where mc.is_teacher and s.task_id = t.id) as submitted_count,
               -- The course's counter rows (sql/046), not a count of its members per homework (issue 30.4).
               case when mc.is_teacher then ${studentCountOf(sql, sql`t.course_id`)} end as student_count
         where mc.is_teacher
      ) counts on true
     -- Across courses, archived ones are left out (read-only, nothing to hand in: issue 56.3);
     -- one course asked for by id is listed whatever its state (its members still read it).
     where (${courseId}::uuid is null and not mc.archived) or mc.id = ${courseId}::uuid
     order by t.due_at, t.id`
}

/** The red dot: the user's unread homework reminders. */
export async function unreadReminderCount(sql: Sql, userId: string) {
  // The per-user counter kept by triggers (sql/012): one keyed row, no count over the inbox.
  const [row] = await sql<{ n: number }[]>`select unread_reminders as n from notification_counters where user_id = ${userId}`
  return row?.n ?? 0
}
