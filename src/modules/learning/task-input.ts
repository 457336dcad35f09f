import type { z } from 'zod'
import { iso } from '../../http/envelope.ts'
import { badRequest, invalidField, type FieldError } from '../../http/errors.ts'
import { newId } from '../../lib/ids.ts'
import { sanitizeRichText } from '../../lib/richtext.ts'
import { CreateTaskBody, httpUrl, type PatchTaskBody } from './model.ts'
import type { StoredQuestion, TaskRow } from './rows.ts'
import type { TaskValues } from './structure-queries.ts'

/** zod issues → the `{ field, message }` rows every validation failure carries. */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'body', message: i.message }))
}

export function invalid(fields: FieldError[]) {
  return badRequest(`Invalid request. ${fields.map((f) => `${f.field}: ${f.message}`).join('; ')}`.slice(0, 500), fields)
}

/**
 * A validated task body → the values stored: irrelevant fields cleared, rich text sanitised,
 * the url normalised, question ids assigned (kept for questions the task already has), and
 * the homework window defaulted (startAt = now) and checked against `now`.
 */
export function taskValues(body: CreateTaskBody, existing: StoredQuestion[], now: Date): TaskValues {
  const media = body.taskType === 'MEDIA'
  const homework = body.taskKind === 'HOMEWORK'
  const material = media ? (body.materialType ?? null) : null
  const content = sanitizeRichText(body.content)
  if (material === 'TEXT' && !content) throw invalidField('content', 'is empty once unsafe HTML is removed')

  const known = new Map(existing.map((q) => [q.id, q]))
  const used = new Set<string>()
  const questions: StoredQuestion[] = media
    ? []
    : body.questions.map((q) => {
        const id = q.id && known.has(q.id) && !used.has(q.id) ? q.id : newId()
        used.add(id)
        const choice = q.type !== 'SHORT_ANSWER'
        // A question an edit adds was not on the sheets handed in before (issue 56.5a).
        const addedAt = known.has(id) ? known.get(id)!.addedAt : existing.length ? now.toISOString() : undefined
        return {
          id,
          type: q.type,
          stem: q.stem,
          options: choice ? (q.options ?? []) : [],
          correctOptions: choice ? [...(q.correctOptions ?? [])].sort((a, b) => a - b) : [],
          points: q.points,
          ...(addedAt ? { addedAt } : {}),
        }
      })

  const startAt = homework ? (body.startAt ? new Date(body.startAt) : now) : null
  const dueAt = homework && body.dueAt ? new Date(body.dueAt) : null
  if (startAt && dueAt && dueAt <= startAt) {
    throw invalidField('dueAt', body.startAt ? 'must be after startAt' : 'must be after startAt (which defaults to now)')
  }

  return {
    title: body.title,
    taskKind: body.taskKind,
    taskType: body.taskType,
    materialType: material,
    content,
    url: material === 'LINK' && body.url ? httpUrl(body.url) : null,
    resourceId: material === 'FILE' ? (body.resourceId ?? null) : null,
    questions,
    startAt,
    dueAt,
    notifyOnStart: body.notifyOnStart,
    notifyBeforeDue24h: body.notifyBeforeDue24h,
    notifyOnDue: body.notifyOnDue,
    lti:
      body.taskType === 'LTI' && body.lti
        ? { toolId: body.lti.toolId, targetLinkUri: body.lti.targetLinkUri ? httpUrl(body.lti.targetLinkUri) : null, custom: body.lti.custom ?? {} }
        : null,
  }
}

/** The stored task in request form, so an edit is validated exactly like a new task. */
function asInput(r: TaskRow) {
  return {
    title: r.title,
    taskKind: r.task_kind,
    taskType: r.task_type,
    materialType: r.material_type,
    content: r.content,
    url: r.url,
    resourceId: r.resource_id,
    questions: r.questions.map((q) => ({ ...q })),
    startAt: iso(r.start_at),
    dueAt: iso(r.due_at),
    notifyOnStart: r.notify_on_start,
    notifyBeforeDue24h: r.notify_before_due_24h,
    notifyOnDue: r.notify_on_due,
    lti: r.task_type === 'LTI' && r.lti_tool_id ? { toolId: r.lti_tool_id, targetLinkUri: r.lti_target_link_uri, custom: r.lti_custom ?? {} } : null,
  }
}

/**
 * Stored task + patch → a full body validated by the create schema. Stored fields that the
 * new kind/type/material no longer uses are dropped (switching LINK → TEXT forgets the url);
 * fields the client sent are kept, so sending one that does not fit is still a 400.
 */
export function mergePatch(row: TaskRow, patch: PatchTaskBody): CreateTaskBody {
  const sent = new Set(Object.entries(patch).filter(([, v]) => v !== undefined).map(([k]) => k))
  const merged: Record<string, unknown> = { ...asInput(row) }
  for (const k of sent) merged[k] = (patch as Record<string, unknown>)[k]
  const drop = (k: string, when: boolean) => {
    if (when && !sent.has(k)) merged[k] = k === 'questions' ? [] : null
  }
  const quiz = merged.taskType === 'QUIZ'
  const lti = merged.taskType === 'LTI'
  drop('materialType', quiz || lti)
  drop('lti', !lti)
  drop('url', quiz || lti || merged.materialType !== 'LINK')
  drop('resourceId', quiz || lti || merged.materialType !== 'FILE')
  drop('questions', !quiz)
  drop('startAt', merged.taskKind !== 'HOMEWORK')
  drop('dueAt', merged.taskKind !== 'HOMEWORK')
  if (merged.startAt === null && !sent.has('startAt')) delete merged.startAt
  const parsed = CreateTaskBody.safeParse(merged)
  if (!parsed.success) throw invalid(fieldErrors(parsed.error))
  return parsed.data
}

/** Did an edit touch anything the homework reminders depend on? */
/**
 * The reminder triggers a schedule change can give new events: all when the task becomes or
 * stops being homework; START when startAt or its switch changed; BEFORE_DUE_24H and DUE when
 * dueAt or their switch changed. (A moved dueAt alone never makes a START: START is generated
 * at startAt, or at "now" only when the homework is published.)
 */
export function changedTriggers(before: TaskRow, after: TaskValues): ('START' | 'BEFORE_DUE_24H' | 'DUE')[] {
  const t = (d: Date | null) => d?.getTime() ?? null
  if (before.task_kind !== after.taskKind) return ['START', 'BEFORE_DUE_24H', 'DUE']
  const due = t(before.due_at) !== t(after.dueAt)
  return [
    ...(t(before.start_at) !== t(after.startAt) || before.notify_on_start !== after.notifyOnStart ? (['START'] as const) : []),
    ...(due || before.notify_before_due_24h !== after.notifyBeforeDue24h ? (['BEFORE_DUE_24H'] as const) : []),
    ...(due || before.notify_on_due !== after.notifyOnDue ? (['DUE'] as const) : []),
  ]
}

export function scheduleChanged(before: TaskRow, after: TaskValues) {
  const t = (d: Date | null) => d?.getTime() ?? null
  if (before.task_kind !== 'HOMEWORK' && after.taskKind !== 'HOMEWORK') return false
  return (
    before.task_kind !== after.taskKind ||
    t(before.start_at) !== t(after.startAt) ||
    t(before.due_at) !== t(after.dueAt) ||
    before.notify_on_start !== after.notifyOnStart ||
    before.notify_before_due_24h !== after.notifyBeforeDue24h ||
    before.notify_on_due !== after.notifyOnDue
  )
}
