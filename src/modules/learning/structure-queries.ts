import type { Sql, TxSql } from '../../db/connect.ts'
import { lateSql } from '../../db/due-sql.ts'
import type { PointRow, Rubric, StoredQuestion, TaskRow, UnitRow } from './rows.ts'

type Db = Sql | TxSql

const TASK_COLUMNS = [
  'id', 'point_id', 'course_id', 'title', 'task_kind', 'task_type', 'material_type', 'content', 'url',
  'resource_id', 'questions', 'start_at', 'due_at', 'notify_on_start', 'notify_before_due_24h', 'notify_on_due',
  'sort_order', 'created_at', 'publish_state', 'publish_at', 'published_at', 'grade_release', 'rubric',
  'lti_tool_id', 'lti_target_link_uri', 'lti_custom',
] as const

// ----- units -----------------------------------------------------------------------------------

/** Appended last: the position is computed in the insert itself. */
export async function insertUnit(sql: Db, u: { id: string; courseId: string; title: string; description: string; now: Date }) {
  const [row] = await sql<UnitRow[]>`
    insert into learning_units (id, course_id, title, description, sort_order, created_at)
    values (${u.id}, ${u.courseId}, ${u.title}, ${u.description},
            (select coalesce(max(sort_order), 0) + 1 from learning_units where course_id = ${u.courseId}), ${u.now})
    returning id, course_id, title, description, sort_order`
  return row!
}

export async function updateUnit(sql: Db, courseId: string, unitId: string, p: { title?: string; description?: string; now: Date }) {
  const [row] = await sql<UnitRow[]>`
    update learning_units
       set title = coalesce(${p.title ?? null}, title),
           description = coalesce(${p.description ?? null}, description),
           updated_at = ${p.now}
     where id = ${unitId} and course_id = ${courseId}
    returning id, course_id, title, description, sort_order`
  return row ?? null
}

/**
 * Locks the rows a delete would remove (the unit or point, its points and its tasks) for the
 * rest of the transaction, so the "has submissions" check that follows (a new statement, a new
 * snapshot) sees every answer sheet: a submission being inserted holds a key-share lock on its
 * task, so the lock waits for it to commit; one that comes later waits for the delete and then
 * finds its task gone. False: no such row in the course.
 */
export async function lockForDelete(tx: TxSql, kind: 'unit' | 'point' | 'task', courseId: string, id: string) {
  if (kind === 'unit') {
    const [u] = await tx`select id from learning_units where id = ${id} and course_id = ${courseId} for update`
    if (!u) return false
    await tx`select id from knowledge_points where unit_id = ${id} order by id for update`
    await tx`
      select t.id from learning_tasks t join knowledge_points p on p.id = t.point_id
       where p.unit_id = ${id} order by t.id for update of t`
    return true
  }
  if (kind === 'point') {
    const [p] = await tx`select id from knowledge_points where id = ${id} and course_id = ${courseId} for update`
    if (!p) return false
    await tx`select id from learning_tasks where point_id = ${id} order by id for update`
    return true
  }
  const [t] = await tx`select id from learning_tasks where id = ${id} and course_id = ${courseId} for update`
  return Boolean(t)
}

/**
 * Locks the course row against other appenders: units are numbered under it, so parallel
 * creations get distinct positions.
 */
export async function lockCourseForAppend(tx: TxSql, courseId: string) {
  await tx`select id from courses where id = ${courseId} for no key update`
}

/** Locks the unit row (points are numbered under it); null when it is not in the course. */
export async function lockUnit(tx: TxSql, courseId: string, unitId: string) {
  const [row] = await tx<{ id: string }[]>`
    select id from learning_units where id = ${unitId} and course_id = ${courseId} for no key update`
  return row ?? null
}

/** Whether the unit exists in the course and whether any answer sheet hangs under it: one query. */
export async function unitDeletability(sql: Db, courseId: string, unitId: string) {
  const [row] = await sql<{ has_submissions: boolean }[]>`
    select exists (
             select 1 from learning_submissions s
               join learning_tasks t on t.id = s.task_id
               join knowledge_points p on p.id = t.point_id
              where p.unit_id = u.id) as has_submissions
      from learning_units u
     where u.id = ${unitId} and u.course_id = ${courseId}`
  return row ?? null
}

export async function deleteUnit(sql: Db, courseId: string, unitId: string) {
  const res = await sql`delete from learning_units where id = ${unitId} and course_id = ${courseId}`
  return res.count
}

// ----- points ----------------------------------------------------------------------------------

/** Inserts under the unit only if the unit belongs to the course (no row back otherwise). */
export async function insertPoint(
  sql: Db,
  p: { id: string; courseId: string; unitId: string; title: string; description: string; now: Date },
) {
  const [row] = await sql<PointRow[]>`
    insert into knowledge_points (id, unit_id, course_id, title, description, sort_order, created_at)
    select ${p.id}, u.id, u.course_id, ${p.title}, ${p.description},
           (select coalesce(max(sort_order), 0) + 1 from knowledge_points where unit_id = u.id), ${p.now}
      from learning_units u
     where u.id = ${p.unitId} and u.course_id = ${p.courseId}
    returning id, unit_id, course_id, title, description, sort_order`
  return row ?? null
}

export async function updatePoint(sql: Db, courseId: string, pointId: string, p: { title?: string; description?: string; now: Date }) {
  const [row] = await sql<PointRow[]>`
    update knowledge_points
       set title = coalesce(${p.title ?? null}, title),
           description = coalesce(${p.description ?? null}, description),
           updated_at = ${p.now}
     where id = ${pointId} and course_id = ${courseId}
    returning id, unit_id, course_id, title, description, sort_order`
  return row ?? null
}

export async function pointDeletability(sql: Db, courseId: string, pointId: string) {
  const [row] = await sql<{ has_submissions: boolean }[]>`
    select exists (
             select 1 from learning_submissions s
               join learning_tasks t on t.id = s.task_id
              where t.point_id = p.id) as has_submissions
      from knowledge_points p
     where p.id = ${pointId} and p.course_id = ${courseId}`
  return row ?? null
}

export async function deletePoint(sql: Db, courseId: string, pointId: string) {
  const res = await sql`delete from knowledge_points where id = ${pointId} and course_id = ${courseId}`
  return res.count
}

/**
 * Locks the point row for the rest of the transaction. Task creation and reordering of the
 * same point take this lock, so they run one after the other.
 */
export async function lockPoint(tx: TxSql, courseId: string, pointId: string) {
  const [row] = await tx<{ id: string }[]>`
    select id from knowledge_points where id = ${pointId} and course_id = ${courseId} for update`
  return row ?? null
}

// ----- tasks -----------------------------------------------------------------------------------

export interface TaskValues {
  title: string
  taskKind: TaskRow['task_kind']
  taskType: TaskRow['task_type']
  materialType: TaskRow['material_type']
  content: string
  url: string | null
  resourceId: string | null
  questions: StoredQuestion[]
  startAt: Date | null
  dueAt: Date | null
  notifyOnStart: boolean
  notifyBeforeDue24h: boolean
  notifyOnDue: boolean
  lti: { toolId: string; targetLinkUri: string | null; custom: Record<string, string> } | null
}

/** Who sees the task (publishing.ts): written with the task's other values. */
export interface PublishValues {
  state: TaskRow['publish_state']
  publishAt: Date | null
  publishedAt: Date | null
}

/** A tool registered for this course, or for every course by the operator (LTI tasks). */
export async function isCourseLtiTool(sql: Db, courseId: string, toolId: string) {
  const [row] = await sql<{ ok: boolean }[]>`
    select exists (select 1 from lti_tools where id = ${toolId} and (course_id = ${courseId} or course_id is null)) as ok`
  return row?.ok ?? false
}

export async function isCourseFileResource(sql: Db, courseId: string, resourceId: string) {
  const [row] = await sql<{ ok: boolean }[]>`
    select exists (select 1 from course_resources
                    where id = ${resourceId} and course_id = ${courseId} and resource_type = 'FILE') as ok`
  return row?.ok ?? false
}

export async function insertTask(
  tx: TxSql,
  t: TaskValues & PublishValues & { id: string; courseId: string; pointId: string; now: Date; gradeRelease: TaskRow['grade_release'] },
) {
  const [row] = await tx<TaskRow[]>`
    insert into learning_tasks (id, point_id, course_id, title, task_kind, task_type, material_type, content, url,
                                resource_id, questions, start_at, due_at, notify_on_start, notify_before_due_24h,
                                notify_on_due, sort_order, created_at, publish_state, publish_at, published_at, grade_release,
                                lti_tool_id, lti_target_link_uri, lti_custom)
    values (${t.id}, ${t.pointId}, ${t.courseId}, ${t.title}, ${t.taskKind}, ${t.taskType}, ${t.materialType},
            ${t.content}, ${t.url}, ${t.resourceId}, ${tx.json(t.questions as any)}, ${t.startAt}, ${t.dueAt},
            ${t.notifyOnStart}, ${t.notifyBeforeDue24h}, ${t.notifyOnDue},
            (select coalesce(max(sort_order), 0) + 1 from learning_tasks where point_id = ${t.pointId}), ${t.now},
            ${t.state}, ${t.publishAt}, ${t.publishedAt}, ${t.gradeRelease},
            ${t.lti?.toolId ?? null}, ${t.lti?.targetLinkUri ?? null}, ${t.lti ? tx.json(t.lti.custom) : null})
    returning ${tx(TASK_COLUMNS)}`
  return row!
}

export async function findTask(sql: Db, courseId: string, taskId: string) {
  const [row] = await sql<TaskRow[]>`
    select ${sql(TASK_COLUMNS)} from learning_tasks where id = ${taskId} and course_id = ${courseId}`
  return row ?? null
}

/** The task row, locked for an edit, and whether it has answer sheets. */
export async function findTaskForUpdate(tx: TxSql, courseId: string, taskId: string) {
  const [row] = await tx<(TaskRow & { has_submissions: boolean })[]>`
    select ${tx(TASK_COLUMNS)},
           exists (select 1 from learning_submissions s where s.task_id = learning_tasks.id) as has_submissions
      from learning_tasks
     where id = ${taskId} and course_id = ${courseId}
       for update`
  return row ?? null
}

export async function updateTask(tx: TxSql, taskId: string, t: TaskValues & PublishValues & { now: Date; gradeRelease: TaskRow['grade_release'] }) {
  const [row] = await tx<TaskRow[]>`
    update learning_tasks
       set title = ${t.title}, task_kind = ${t.taskKind}, task_type = ${t.taskType}, material_type = ${t.materialType},
           content = ${t.content}, url = ${t.url}, resource_id = ${t.resourceId}, questions = ${tx.json(t.questions as any)},
           start_at = ${t.startAt}, due_at = ${t.dueAt}, notify_on_start = ${t.notifyOnStart},
           notify_before_due_24h = ${t.notifyBeforeDue24h}, notify_on_due = ${t.notifyOnDue}, updated_at = ${t.now},
           publish_state = ${t.state}, publish_at = ${t.publishAt}, published_at = ${t.publishedAt},
           grade_release = ${t.gradeRelease},
           lti_tool_id = ${t.lti?.toolId ?? null}, lti_target_link_uri = ${t.lti?.targetLinkUri ?? null},
           lti_custom = ${t.lti ? tx.json(t.lti.custom) : null}
     where id = ${taskId}
    returning ${tx(TASK_COLUMNS)}`
  return row!
}

export async function setRubric(tx: TxSql, taskId: string, rubric: Rubric | null, now: Date) {
  const [row] = await tx<TaskRow[]>`
    update learning_tasks set rubric = ${rubric ? tx.json(rubric as any) : null}::jsonb, updated_at = ${now}
     where id = ${taskId}
    returning ${tx(TASK_COLUMNS)}`
  return row!
}

/**
 * The deadline moved: every answer sheet's `late` follows the new due time (src/lib/due.ts: late
 * only after dueAt), so the grading list agrees with the gradebook and the homework centre,
 * which compare with the current due time. Only the sheets whose flag changes are written.
 */
export async function relabelLate(tx: TxSql, taskId: string, dueAt: Date | null) {
  const res = await tx`
    update learning_submissions
       set late = ${lateSql(tx, tx`submitted_at`, tx`${dueAt}::timestamptz`)}
     where task_id = ${taskId} and late <> ${lateSql(tx, tx`submitted_at`, tx`${dueAt}::timestamptz`)}`
  return res.count
}

export async function taskDeletability(sql: Db, courseId: string, taskId: string) {
  const [row] = await sql<{ has_submissions: boolean }[]>`
    select exists (select 1 from learning_submissions s where s.task_id = t.id) as has_submissions
      from learning_tasks t
     where t.id = ${taskId} and t.course_id = ${courseId}`
  return row ?? null
}

export async function deleteTask(sql: Db, courseId: string, taskId: string) {
  const res = await sql`delete from learning_tasks where id = ${taskId} and course_id = ${courseId}`
  return res.count
}

export async function taskIdsOfPoint(sql: Db, pointId: string) {
  const rows = await sql<{ id: string }[]>`select id from learning_tasks where point_id = ${pointId}`
  return rows.map((r) => r.id)
}

/** Writes positions 1..n in one statement. */
export async function writeTaskOrder(tx: TxSql, pointId: string, orderedIds: string[]) {
  const values = orderedIds.map((id, i) => [id, i + 1])
  await tx`
    update learning_tasks t
       set sort_order = v.position::int
      from (values ${tx(values as any)}) as v (id, position)
     where t.id = v.id::uuid and t.point_id = ${pointId}`
}

export async function tasksOfPoint(sql: Db, pointId: string) {
  return sql<TaskRow[]>`
    select ${sql(TASK_COLUMNS)} from learning_tasks where point_id = ${pointId} order by sort_order, id`
}

// ----- the tree: three queries whatever the size of the course ----------------------------------

export async function unitsOfCourse(sql: Db, courseId: string) {
  return sql<UnitRow[]>`
    select id, course_id, title, description, sort_order
      from learning_units where course_id = ${courseId} order by sort_order, id`
}

export async function pointsOfCourse(sql: Db, courseId: string) {
  return sql<PointRow[]>`
    select id, unit_id, course_id, title, description, sort_order
      from knowledge_points where course_id = ${courseId} order by sort_order, id`
}

/** `publishedOnly`: a student's tree (drafts, scheduled and unpublished tasks left out). */
export async function tasksOfCourse(sql: Db, courseId: string, publishedOnly = false) {
  return sql<TaskRow[]>`
    select ${sql(TASK_COLUMNS)} from learning_tasks
     where course_id = ${courseId} ${publishedOnly ? sql`and publish_state = 'PUBLISHED'` : sql``}
     order by sort_order, id`
}

/**
 * The task-publisher job's batch: scheduled tasks whose time has come (courses not archived),
 * published in this statement. SKIP LOCKED: a row another instance (or a teacher's edit) holds
 * is left to it, so each task is published once.
 */
export async function publishDueTasks(tx: TxSql, now: Date, limit: number) {
  return tx<{ id: string; task_kind: TaskRow['task_kind'] }[]>`
    update learning_tasks t
       set publish_state = 'PUBLISHED', publish_at = null, published_at = ${now}, updated_at = ${now}
     where t.id in (select s.id from learning_tasks s
                     where s.publish_state = 'SCHEDULED' and s.publish_at <= ${now}
                       and not exists (select 1 from courses c where c.id = s.course_id and c.archived)
                     order by s.publish_at, s.id
                     limit ${limit}
                       for update skip locked)
    returning t.id, t.task_kind`
}
