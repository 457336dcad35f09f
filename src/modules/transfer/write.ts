import type { Sql, TxSql } from '../../db/connect.ts'
import { newId } from '../../lib/ids.ts'
import { CreateTaskBody, QuestionInput } from '../learning/model.ts'
import { nextPublication } from '../learning/publishing.ts'
import * as lq from '../learning/structure-queries.ts'
import { taskValues } from '../learning/task-input.ts'
import { homeworkCreated } from '../reminders/hooks.ts'
import * as cq from '../courses/queries.ts'
import { randomInviteCode } from '../courses/invite-code.ts'
import { insertResource } from '../resources/queries.ts'
import type { StoredFile } from '../../storage/storage.ts'
import type { Plan, PlanTask, Skipped } from './plan.ts'
import { ImportFailure } from './failure.ts'
import { RubricBody } from '../rubrics/model.ts'
import { rubricValues } from '../rubrics/rules.ts'

export interface Created {
  units: number
  points: number
  tasks: number
  quizzes: number
  questions: number
  homework: number
  resources: number
  files: number
}

const fieldReason = (issues: { path: PropertyKey[]; message: string }[]) =>
  `Not valid here: ${issues.map((i) => `${i.path.map(String).join('.') || 'task'} ${i.message}`).join('; ')}`.slice(0, 300)

/**
 * A task of the plan as the service's own create body, validated like one a teacher sends.
 * Homework keeps its dates; one without a due date is due a week after it opens (and stays a
 * draft so the teacher sets the date); questions that do not validate are skipped, each with why.
 */
function bodyOf(t: PlanTask, now: Date, skipped: Skipped[]) {
  const questions = t.questions.flatMap((q) => {
    const r = QuestionInput.safeParse(q)
    if (r.success) return [r.data]
    skipped.push({ kind: 'question', title: q.stem.slice(0, 80), reason: fieldReason(r.error.issues) })
    return []
  })
  if (questions.length > 100) {
    for (const q of questions.splice(100)) skipped.push({ kind: 'question', title: q.stem.slice(0, 80), reason: 'A quiz takes at most 100 questions.' })
  }
  let startAt = t.startAt
  let dueAt = t.dueAt
  let draft = t.draft
  if (t.kind === 'HOMEWORK') {
    if (!dueAt) {
      startAt ??= now
      dueAt = new Date(startAt.getTime() + 7 * 86_400_000)
      draft = true
    }
    if (!startAt || startAt >= dueAt) startAt = new Date(Math.min(now.getTime(), dueAt.getTime() - 86_400_000))
  }
  const content = t.material === 'TEXT' && !t.content.replace(/<[^>]*>/g, '').trim() && !/<a\b/i.test(t.content) ? `<p>${t.title.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p>` : t.content
  return {
    draft,
    parsed: CreateTaskBody.safeParse({
      title: t.title,
      taskKind: t.kind,
      taskType: t.type,
      ...(t.type === 'MEDIA' ? { materialType: t.material } : {}),
      content: t.type === 'MEDIA' ? content : '',
      ...(t.url ? { url: t.url } : {}),
      ...(t.resourceId ? { resourceId: t.resourceId } : {}),
      questions: t.type === 'QUIZ' ? questions : [],
      ...(t.kind === 'HOMEWORK' ? { startAt: startAt!.toISOString(), dueAt: dueAt!.toISOString() } : {}),
    }),
  }
}

/**
 * Writes the plan as a new course of `teacherId` in one transaction: the course (fresh invite
 * code), its resources (the files stored while reading), units, points and tasks. Nothing of it is
 * visible before the commit, and a failure leaves nothing.
 */
export async function writePlan(
  sql: Sql,
  plan: Plan,
  stored: Map<string, StoredFile>,
  teacherId: string,
  now: Date,
): Promise<{ courseId: string; created: Created; usedKeys: Set<string> }> {
  const created: Created = { units: 0, points: 0, tasks: 0, quizzes: 0, questions: 0, homework: 0, resources: 0, files: 0 }
  const usedKeys = new Set<string>()
  const courseId = newId()
  await sql.begin(async (tx) => {
    let inserted = null
    for (let i = 0; i < 5 && !inserted; i++) {
      inserted = await cq.insertCourse(tx, { id: courseId, teacherId, title: plan.title.slice(0, 120), description: plan.description, inviteCode: randomInviteCode(), now })
    }
    if (!inserted) throw new ImportFailure('IMPORT_INTERRUPTED', 'The import stopped before it finished; nothing was created. Try again.')
    const usable = new Set<string>()
    for (const r of plan.resources.values()) {
      const file = stored.get(r.path)
      if (!file) continue
      await insertResource(tx as unknown as Sql, {
        id: r.id, courseId, name: r.name.slice(0, 200), type: 'FILE', category: 'Imported', externalUrl: null,
        file: { storageKey: file.key, fileName: r.name.slice(0, 255), fileSize: file.size, contentType: r.contentType }, createdBy: teacherId, now,
      })
      usedKeys.add(file.key)
      usable.add(r.id)
      created.resources++
      created.files++
    }
    for (const u of plan.units) {
      const unit = await lq.insertUnit(tx, { id: newId(), courseId, title: u.title, description: u.description, now })
      created.units++
      for (const p of u.points) {
        const point = await lq.insertPoint(tx, { id: newId(), courseId, unitId: unit.id, title: p.title, description: '', now })
        created.points++
        for (const t of p.tasks) {
          if (t.resourceId && !usable.has(t.resourceId)) {
            plan.skipped.push({ kind: 'file', title: t.title, reason: 'The file is missing from the package.' })
            continue
          }
          const { parsed, draft } = bodyOf(t, now, plan.skipped)
          if (!parsed.success) {
            plan.skipped.push({ kind: t.type === 'QUIZ' ? 'quiz' : t.kind === 'HOMEWORK' ? 'homework' : 'content', title: t.title, reason: fieldReason(parsed.error.issues) })
            continue
          }
          let values
          try {
            values = taskValues(parsed.data, [], now)
          } catch (e) {
            plan.skipped.push({ kind: 'content', title: t.title, reason: 'The content is empty once unsafe HTML is removed.' })
            void e
            continue
          }
          const publication = nextPublication(null, draft ? 'DRAFT' : 'PUBLISHED', undefined, now)
          const row = await lq.insertTask(tx, { ...values, ...publication, id: newId(), courseId, pointId: point!.id, now, gradeRelease: 'AUTOMATIC' })
          if (row.task_kind === 'HOMEWORK' && !draft) await homeworkCreated(tx, row.id, now)
          if (t.rubric) await importRubric(tx as unknown as TxSql, row.id, row.task_type, t, now, plan.skipped)
          created.tasks++
          if (row.task_type === 'QUIZ') {
            created.quizzes++
            created.questions += values.questions.length
          }
          if (row.task_kind === 'HOMEWORK') created.homework++
        }
      }
    }
  })
  return { courseId, created, usedKeys }
}

/**
 * A homework's rubric from the package, checked as `PUT …/rubric` checks one (the same schema and
 * rules); one that does not fit is left out and named in the report, the task kept without it.
 */
async function importRubric(tx: TxSql, taskId: string, taskType: string, t: PlanTask, now: Date, skipped: Skipped[]) {
  if (taskType !== 'MEDIA' || t.kind !== 'HOMEWORK') return
  const parsed = RubricBody.safeParse({ rubric: t.rubric })
  if (!parsed.success || !parsed.data.rubric) {
    skipped.push({ kind: 'rubric', title: t.title, reason: fieldReason(parsed.success ? [] : parsed.error.issues) })
    return
  }
  try {
    await lq.setRubric(tx, taskId, rubricValues(parsed.data.rubric, null, null), now)
  } catch {
    skipped.push({ kind: 'rubric', title: t.title, reason: 'Not valid here: the best levels must give more than 0 points.' })
  }
}
