import postgres from 'postgres'
import type { Sql } from '../../db/connect.ts'
import { AppError, conflict, invalidField, notFound } from '../../http/errors.ts'
import type { CourseAccess } from '../../http/guards.ts'
import { newId } from '../../lib/ids.ts'
import { homeworkCreated } from '../reminders/hooks.ts'
import type { Fanout } from '../../lib/fanout.ts'
import type { CreateTaskBody, CreateUnitBody, PatchTaskBody, PatchUnitBody, ReorderBody } from './model.ts'
import { toPoint, toTask, toUnit, type Viewer } from './rows.ts'
import { answeredQuestions, gradingChanged, regradeTask, type RegradeSummary } from './regrade.ts'
import * as q from './structure-queries.ts'
import { changedTriggers, mergePatch, scheduleChanged, taskValues } from './task-input.ts'
import { afterEdit, isVisible, nextPublication } from './publishing.ts'
import { hasHeld } from './submission-queries.ts'
import { takesAnswers } from './submission-service.ts'
import { rubricValues } from '../rubrics/rules.ts'
import type { RubricBody } from '../rubrics/model.ts'
import { gradesHeld } from './release.ts'

const unitNotFound = () => notFound('UNIT_NOT_FOUND', 'This learning unit does not exist in this course.')
const pointNotFound = () => notFound('POINT_NOT_FOUND', 'This knowledge point does not exist in this course.')
const taskNotFound = () => notFound('TASK_NOT_FOUND', 'This learning task does not exist in this course.')
const hasSubmissions = (what: string) =>
  conflict('HAS_SUBMISSIONS', `Students have already submitted answers under this ${what}, so it cannot be deleted. Edit it instead.`)

const viewerOf = (course: CourseAccess): Viewer => course.as

// ----- units -----------------------------------------------------------------------------------

/** Appended under the course row's lock: parallel creations get distinct positions. */
export async function createUnit(sql: Sql, courseId: string, body: CreateUnitBody, now: Date) {
  return sql.begin(async (tx) => {
    await q.lockCourseForAppend(tx, courseId)
    return toUnit(await q.insertUnit(tx, { id: newId(), courseId, ...body, now }))
  })
}

export async function updateUnit(sql: Sql, courseId: string, unitId: string, body: PatchUnitBody, now: Date) {
  const row = await q.updateUnit(sql, courseId, unitId, { ...body, now })
  if (!row) throw unitNotFound()
  return toUnit(row)
}

export async function deleteUnit(sql: Sql, courseId: string, unitId: string) {
  return sql.begin(async (tx) => {
    if (!(await q.lockForDelete(tx, 'unit', courseId, unitId))) throw unitNotFound()
    const state = await q.unitDeletability(tx, courseId, unitId)
    if (!state) throw unitNotFound()
    if (state.has_submissions) throw hasSubmissions('unit')
    await q.deleteUnit(tx, courseId, unitId)
    return { id: unitId }
  })
}

// ----- points ----------------------------------------------------------------------------------

/** Appended under the unit row's lock: parallel creations get distinct positions. */
export async function createPoint(sql: Sql, courseId: string, unitId: string, body: CreateUnitBody, now: Date) {
  return sql.begin(async (tx) => {
    if (!(await q.lockUnit(tx, courseId, unitId))) throw unitNotFound()
    const row = await q.insertPoint(tx, { id: newId(), courseId, unitId, ...body, now })
    if (!row) throw unitNotFound()
    return toPoint(row)
  })
}

export async function updatePoint(sql: Sql, courseId: string, pointId: string, body: PatchUnitBody, now: Date) {
  const row = await q.updatePoint(sql, courseId, pointId, { ...body, now })
  if (!row) throw pointNotFound()
  return toPoint(row)
}

export async function deletePoint(sql: Sql, courseId: string, pointId: string) {
  return sql.begin(async (tx) => {
    if (!(await q.lockForDelete(tx, 'point', courseId, pointId))) throw pointNotFound()
    const state = await q.pointDeletability(tx, courseId, pointId)
    if (!state) throw pointNotFound()
    if (state.has_submissions) throw hasSubmissions('knowledge point')
    await q.deletePoint(tx, courseId, pointId)
    return { id: pointId }
  })
}

// ----- tasks -----------------------------------------------------------------------------------

const badTool = () => invalidField('lti.toolId', 'must be an LTI tool registered for this course')
const badResource = () => invalidField('resourceId', 'must be a FILE resource of this course')
/** The resource was deleted between the check and the write (its delete committed first). */
const resourceGone = (e: unknown): never => {
  throw e instanceof postgres.PostgresError && e.code === '23503' && e.constraint_name === 'learning_tasks_resource_fk' ? badResource() : e
}

/**
 * `fanout`: the app's background fan-out; a homework of a large course gets its reminder events
 * from it, right after this commit (reminders/hooks.ts). Without it they are written inline.
 */
export async function createTask(sql: Sql, courseId: string, pointId: string, body: CreateTaskBody, now: Date, fanout?: Fanout) {
  const { state, publishAt, gradeRelease, ...fields } = body
  const values = taskValues(fields, [], now)
  const publication = nextPublication(null, state, publishAt, now)
  let queued = false
  const task = await sql.begin(async (tx) => {
    if (!(await q.lockPoint(tx, courseId, pointId))) throw pointNotFound()
    if (values.resourceId && !(await q.isCourseFileResource(tx, courseId, values.resourceId))) throw badResource()
    if (values.lti && !(await q.isCourseLtiTool(tx, courseId, values.lti.toolId))) throw badTool()
    const row = await q.insertTask(tx, { ...values, ...publication, id: newId(), courseId, pointId, now, gradeRelease: gradeRelease ?? 'AUTOMATIC' }).catch(resourceGone)
    // A draft or scheduled homework gets its reminders when it is published (publishing.ts).
    if (row.task_kind === 'HOMEWORK' && isVisible(row.publish_state)) queued = await homeworkCreated(tx, row.id, now, fanout)
    return toTask(row, 'TEACHER')
  })
  if (queued) fanout!.kick()
  return task
}

/**
 * An edit keeps question ids (questions sent with their `id`); a question of the task that the
 * edit leaves out and that students answered is removed only with `confirmQuestionRemoval`
 * (else 409 HAS_SUBMISSIONS naming them). An edit that changes what sheets are worth regrades
 * them in the same transaction; `regrade` says what happened (null when nothing was regraded).
 */
export async function updateTask(sql: Sql, courseId: string, taskId: string, patch: PatchTaskBody, now: Date, fanout?: Fanout) {
  const { confirmQuestionRemoval, state, publishAt, gradeRelease, ...fields } = patch
  let queued = false
  const task = await sql.begin(async (tx) => {
    const before = await q.findTaskForUpdate(tx, courseId, taskId)
    if (!before) throw taskNotFound()
    const values = taskValues(mergePatch(before, fields), before.questions, now)
    const publication = nextPublication(before, state, publishAt, now)
    if (values.taskType !== before.task_type && before.has_submissions) {
      throw conflict('HAS_SUBMISSIONS', 'Students have already submitted answers to this task, so its type can no longer change.')
    }
    // Material takes no answers (issue 56.6): handed-in homework cannot become material, or its sheets could no longer be graded.
    if (values.taskKind === 'LEARNING' && values.taskType === 'MEDIA' && before.task_kind === 'HOMEWORK' && before.has_submissions) {
      throw conflict('HAS_SUBMISSIONS', 'Students have already handed in this homework, so it can no longer become reading material.')
    }
    const kept = new Set(values.questions.map((qu) => qu.id))
    const dropped = before.questions.filter((qu) => !kept.has(qu.id))
    if (dropped.length && before.has_submissions && !confirmQuestionRemoval) {
      const answered = await answeredQuestions(tx, taskId, dropped.map((qu) => qu.id))
      const questions = dropped.filter((qu) => answered.has(qu.id)).map((qu) => ({ id: qu.id, stem: qu.stem, answers: answered.get(qu.id)! }))
      if (questions.length) {
        throw new AppError(
          'HAS_SUBMISSIONS',
          `${questions.length} question(s) this edit removes have answers from students. Send confirmQuestionRemoval: true to remove them (their answers then no longer count), or send each kept question with its id.`,
          { questions },
        )
      }
    }
    if (values.resourceId && values.resourceId !== before.resource_id && !(await q.isCourseFileResource(tx, courseId, values.resourceId))) {
      throw badResource()
    }
    // Grades held for release stay held: switching to AUTOMATIC first needs the release (issue 54).
    if (gradeRelease === 'AUTOMATIC' && before.grade_release === 'MANUAL' && (await hasHeld(tx, taskId))) throw gradesHeld()
    if (values.lti && values.lti.toolId !== before.lti_tool_id && !(await q.isCourseLtiTool(tx, courseId, values.lti.toolId))) throw badTool()
    const row = await q.updateTask(tx, taskId, { ...values, ...publication, now, gradeRelease: gradeRelease ?? before.grade_release }).catch(resourceGone)
    queued = await afterEdit(
      tx,
      taskId,
      { visible: isVisible(before.publish_state), wasHomework: before.task_kind === 'HOMEWORK' },
      { visible: isVisible(row.publish_state), isHomework: row.task_kind === 'HOMEWORK' },
      scheduleChanged(before, values),
      now,
      changedTriggers(before, values),
      fanout,
    )
    if (before.has_submissions && before.due_at?.getTime() !== row.due_at?.getTime()) await q.relabelLate(tx, taskId, row.due_at)
    let regrade: RegradeSummary | null = null
    if (before.has_submissions && row.task_type === 'QUIZ' && gradingChanged(before.questions, row.questions)) {
      regrade = await regradeTask(tx, taskId, before.questions, row.questions)
    }
    return { ...toTask(row, 'TEACHER'), regrade }
  })
  if (queued) fanout!.kick()
  return task
}

/** A task's rubric set, replaced or removed (issue 54); checked against a quiz's questions. */
export async function setRubric(sql: Sql, courseId: string, taskId: string, body: RubricBody, now: Date) {
  return sql.begin(async (tx) => {
    const before = await q.findTaskForUpdate(tx, courseId, taskId)
    if (!before) throw taskNotFound()
    if (!takesAnswers(before)) throw conflict('TASK_TAKES_NO_ANSWERS', 'This task is material to read or watch: it takes no answers. Homework and quizzes take answers.')
    const rubric = body.rubric === null ? null : rubricValues(body.rubric, before.rubric, before.task_type === 'QUIZ' ? before.questions : null)
    return toTask(await q.setRubric(tx, taskId, rubric, now), 'TEACHER')
  })
}

export async function getTask(sql: Sql, course: CourseAccess, taskId: string) {
  const row = await q.findTask(sql, course.id, taskId)
  // A task students cannot see is, for them, no task at all.
  if (!row || (viewerOf(course) !== 'TEACHER' && !isVisible(row.publish_state))) throw taskNotFound()
  return toTask(row, viewerOf(course))
}

export async function deleteTask(sql: Sql, courseId: string, taskId: string) {
  return sql.begin(async (tx) => {
    if (!(await q.lockForDelete(tx, 'task', courseId, taskId))) throw taskNotFound()
    const state = await q.taskDeletability(tx, courseId, taskId)
    if (!state) throw taskNotFound()
    if (state.has_submissions) throw hasSubmissions('task')
    await q.deleteTask(tx, courseId, taskId)
    return { id: taskId }
  })
}

/**
 * The new order is written under the point's row lock: concurrent reorders (and task
 * creation) of one point run one after the other, each validated against the tasks present
 * when it runs, so the result is always exactly one client's order.
 */
export async function reorderTasks(sql: Sql, courseId: string, pointId: string, body: ReorderBody) {
  return sql.begin(async (tx) => {
    if (!(await q.lockPoint(tx, courseId, pointId))) throw pointNotFound()
    const current = new Set(await q.taskIdsOfPoint(tx, pointId))
    const wanted = body.orderedTaskIds
    const distinct = new Set(wanted)
    if (distinct.size !== wanted.length) throw invalidField('orderedTaskIds', 'lists a task more than once')
    if (wanted.length !== current.size || wanted.some((id) => !current.has(id))) {
      throw invalidField('orderedTaskIds', `must list every task of this knowledge point exactly once (${current.size} tasks)`)
    }
    if (wanted.length) await q.writeTaskOrder(tx, pointId, wanted)
    return (await q.tasksOfPoint(tx, pointId)).map((r) => toTask(r, 'TEACHER'))
  })
}

// ----- the tree --------------------------------------------------------------------------------

/** Three queries (units, points, tasks of the course), assembled in memory. */
export async function learningTree(sql: Sql, course: CourseAccess) {
  const [units, points, tasks] = await Promise.all([
    q.unitsOfCourse(sql, course.id),
    q.pointsOfCourse(sql, course.id),
    q.tasksOfCourse(sql, course.id, viewerOf(course) !== 'TEACHER'),
  ])
  const viewer = viewerOf(course)
  const tasksByPoint = new Map<string, ReturnType<typeof toTask>[]>()
  for (const t of tasks) {
    const list = tasksByPoint.get(t.point_id) ?? []
    list.push(toTask(t, viewer))
    tasksByPoint.set(t.point_id, list)
  }
  const pointsByUnit = new Map<string, (ReturnType<typeof toPoint> & { tasks: ReturnType<typeof toTask>[] })[]>()
  for (const p of points) {
    const list = pointsByUnit.get(p.unit_id) ?? []
    list.push({ ...toPoint(p), tasks: tasksByPoint.get(p.id) ?? [] })
    pointsByUnit.set(p.unit_id, list)
  }
  return { units: units.map((u) => ({ ...toUnit(u), points: pointsByUnit.get(u.id) ?? [] })) }
}
