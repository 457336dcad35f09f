import type { Fragment, Sql, TxSql } from '../../db/connect.ts'

type Db = Sql | TxSql

/** Where a thread hangs: under an announcement, under a task (class), or one student's work for a task (private). */
export type Thread =
  | { kind: 'ANNOUNCEMENT'; courseId: string; announcementId: string }
  | { kind: 'TASK'; courseId: string; taskId: string }
  | { kind: 'PRIVATE'; courseId: string; taskId: string; studentId: string }

export interface CommentRow {
  id: string
  course_id: string
  announcement_id: string | null
  task_id: string | null
  student_id: string | null
  author_id: string
  author_username: string
  author_display_name: string
  author_role: 'TEACHER' | 'STUDENT'
  content: string
  created_at: Date
  edited_at: Date | null
  hidden: boolean
}

const columns = (sql: Db) => sql`
  c.id, c.course_id, c.announcement_id, c.task_id, c.student_id, c.author_id,
  u.username as author_username, u.display_name as author_display_name, u.role as author_role,
  c.content, c.created_at, c.edited_at, c.hidden`

/** The rows of one thread, written so each matches its partial index in sql/055. */
function inThread(sql: Db, t: Thread): Fragment {
  switch (t.kind) {
    case 'ANNOUNCEMENT':
      return sql`c.announcement_id = ${t.announcementId} and c.announcement_id is not null`
    case 'TASK':
      return sql`c.task_id = ${t.taskId} and c.task_id is not null and c.student_id is null`
    case 'PRIVATE':
      return sql`c.task_id = ${t.taskId} and c.student_id = ${t.studentId} and c.student_id is not null`
  }
}

export async function insertComment(
  sql: Db,
  c: { id: string; thread: Thread; authorId: string; content: string; now: Date },
) {
  const t = c.thread
  await sql`
    insert into comments (id, course_id, announcement_id, task_id, student_id, author_id, content, created_at)
    values (${c.id}, ${t.courseId}, ${t.kind === 'ANNOUNCEMENT' ? t.announcementId : null}, ${t.kind === 'ANNOUNCEMENT' ? null : t.taskId},
            ${t.kind === 'PRIVATE' ? t.studentId : null}, ${c.authorId}, ${c.content}, ${c.now})`
}

export async function findComment(sql: Db, id: string, lock = false) {
  const [row] = await sql<CommentRow[]>`
    select ${columns(sql)}
      from comments c join users u on u.id = c.author_id
     where c.id = ${id}
     ${lock ? sql`for update of c` : sql``}`
  return row ?? null
}

/**
 * One page of a thread, oldest first, after the cursor (created_at, id): a range scan of the
 * thread's index, as fast on the hundredth page as on the first. `seeHidden` false: hidden
 * comments only of `viewerId`.
 */
export async function listThread(
  sql: Db,
  t: Thread,
  after: { at: Date; id: string } | null,
  limit: number,
  viewer: { id: string; seeHidden: boolean },
) {
  return sql<CommentRow[]>`
    select ${columns(sql)}
      from comments c join users u on u.id = c.author_id
     where ${inThread(sql, t)}
       ${after ? sql`and (c.created_at, c.id) > (${after.at}, ${after.id}::uuid)` : sql``}
       ${viewer.seeHidden ? sql`` : sql`and (not c.hidden or c.author_id = ${viewer.id})`}
     order by c.created_at, c.id
     limit ${limit}`
}

export async function updateContent(sql: Db, id: string, content: string, now: Date) {
  await sql`update comments set content = ${content}, edited_at = ${now} where id = ${id}`
}

export async function setHidden(sql: Db, id: string, hidden: boolean) {
  await sql`update comments set hidden = ${hidden} where id = ${id}`
}

export async function deleteComment(sql: Db, id: string) {
  await sql`delete from comments where id = ${id}`
}

/** The announcement of a course: its title, author and publishing state; null when the course has none with this id. */
export async function findAnnouncement(sql: Db, courseId: string, id: string) {
  const [row] = await sql<{ title: string; author_id: string; publish_state: string }[]>`
    select title, author_id, publish_state from announcements where id = ${id} and course_id = ${courseId}`
  return row ?? null
}

export async function findTask(sql: Db, courseId: string, id: string) {
  const [row] = await sql<{ title: string; publish_state: string }[]>`
    select title, publish_state from learning_tasks where id = ${id} and course_id = ${courseId}`
  return row ?? null
}

export async function isStudentOf(sql: Db, courseId: string, userId: string) {
  const [row] = await sql`select 1 from course_members where course_id = ${courseId} and user_id = ${userId}`
  return Boolean(row)
}

/** The course's switch for students' class comments (sql/055). */
export async function studentCommentsOn(sql: Db, courseId: string) {
  const [row] = await sql<{ student_comments: boolean }[]>`select student_comments from courses where id = ${courseId}`
  return row?.student_comments ?? false
}

/**
 * Who hears of a new class comment (COMMENT_REPLY): the writers of the thread's subject (an
 * announcement's author; a task's teachers, a task having no author of its own) and everyone who
 * commented in it before, except `authorId` — and only those still in the course now, so
 * nothing is sent to people who left.
 */
export async function replyRecipients(sql: Db, t: Exclude<Thread, { kind: 'PRIVATE' }>, authorId: string) {
  const subject =
    t.kind === 'ANNOUNCEMENT'
      ? sql`select author_id as user_id from announcements where id = ${t.announcementId}`
      : sql`select teacher_id as user_id from courses where id = ${t.courseId}
            union select user_id from course_teachers where course_id = ${t.courseId}`
  const rows = await sql<{ user_id: string }[]>`
    select r.user_id
      from (${subject} union select distinct c.author_id from comments c where ${inThread(sql, t)}) r
     where r.user_id <> ${authorId}
       and (exists (select 1 from course_members m where m.course_id = ${t.courseId} and m.user_id = r.user_id)
            or exists (select 1 from course_teachers ct where ct.course_id = ${t.courseId} and ct.user_id = r.user_id)
            or exists (select 1 from courses co where co.id = ${t.courseId} and co.teacher_id = r.user_id))`
  return rows.map((r) => r.user_id)
}

/** After an edit: the comment's notifications show the new excerpt. */
export async function rewriteNotifications(sql: Db, commentId: string, excerpt: string) {
  await sql`
    update notifications set params = params || jsonb_build_object('excerpt', ${excerpt}::text)
     where notification_type in ('COMMENT_REPLY', 'PRIVATE_COMMENT') and params ->> 'commentId' = ${commentId}`
}

/** A deleted comment's notifications leave every inbox; returns whose inboxes changed. */
export async function retractNotifications(sql: Db, commentId: string) {
  const rows = await sql<{ user_id: string }[]>`
    delete from notifications
     where notification_type in ('COMMENT_REPLY', 'PRIVATE_COMMENT') and params ->> 'commentId' = ${commentId}
    returning user_id`
  return [...new Set(rows.map((r) => r.user_id))]
}

/**
 * A hidden comment leaves the inboxes of those who may no longer see it (everyone but the
 * course's teachers and its author); returns whose inboxes changed.
 */
export async function retractHiddenNotifications(sql: Db, commentId: string, courseId: string, authorId: string) {
  const rows = await sql<{ user_id: string }[]>`
    delete from notifications n
     where n.notification_type = 'COMMENT_REPLY' and n.params ->> 'commentId' = ${commentId}
       and n.user_id <> ${authorId}
       and not exists (select 1 from courses c where c.id = ${courseId} and c.teacher_id = n.user_id)
       and not exists (select 1 from course_teachers ct where ct.course_id = ${courseId} and ct.user_id = n.user_id)
    returning n.user_id`
  return [...new Set(rows.map((r) => r.user_id))]
}
