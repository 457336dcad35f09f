import { beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '../support/harness.ts'
import { choice, createTask, pointIn, essayTask, textTask, world, type World } from './helpers.ts'

/**
 * Issue 29.4: a double-clicked "Hand in" sent two submissions. A hand-in carries an
 * `Idempotency-Key` (one per attempt): the same key again returns the first submission
 * (200, `Idempotent-Replayed: true`) instead of a second one, even when both arrive at once.
 */
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
let w: World
let essay: any
let quiz: any

beforeAll(async () => {
  w = await world({ clock })
  const pointId = (await pointIn(w)).point.id
  essay = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Essay', ...essayTask })
  quiz = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Quiz', taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [1], 1)] })
}, 60_000)

const handIn = (taskId: string, json: unknown, key?: string, token = w.student.token) =>
  w.api.post(`${w.base}/tasks/${taskId}/submissions`, { token, json, headers: key === undefined ? {} : { 'idempotency-key': key } })
const count = async (taskId: string, token = w.student.token) =>
  (await w.api.get(`${w.base}/tasks/${taskId}/submissions`, { token })).data.total as number

describe('idempotent hand-in', () => {
  test('two parallel hand-ins with one key make one submission; both answers name it', async () => {
    const before = await count(essay.id)
    const key = crypto.randomUUID()
    const [a, b] = await Promise.all([handIn(essay.id, { content: '<p>mine</p>' }, key), handIn(essay.id, { content: '<p>mine</p>' }, key)])
    expect([a.status, b.status].sort()).toEqual([200, 201])
    expect(a.data.id).toBe(b.data.id)
    const replay = a.status === 200 ? a : b
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(replay.code).toBe(0)
    expect(await count(essay.id)).toBe(before + 1)
    // A third try, later, still answers with the same submission.
    const again = await handIn(essay.id, { content: '<p>mine</p>' }, key)
    expect([again.status, again.data.id]).toEqual([200, a.data.id])
    expect(await count(essay.id)).toBe(before + 1)
  })

  test('a new key is a new attempt; no key keeps the old behaviour (every POST a submission)', async () => {
    const before = await count(essay.id)
    expect((await handIn(essay.id, { content: '<p>1</p>' }, crypto.randomUUID())).status).toBe(201)
    expect((await handIn(essay.id, { content: '<p>2</p>' }, crypto.randomUUID())).status).toBe(201)
    expect((await handIn(essay.id, { content: '<p>3</p>' })).status).toBe(201)
    expect((await handIn(essay.id, { content: '<p>3</p>' })).status).toBe(201)
    expect(await count(essay.id)).toBe(before + 4)
  })

  test('keys are per student and task: another student or task with the same key is its own submission', async () => {
    const key = crypto.randomUUID()
    const mine = await handIn(essay.id, { content: '<p>x</p>' }, key)
    const theirs = await handIn(essay.id, { content: '<p>x</p>' }, key, w.student2.token)
    const quizSheet = await handIn(quiz.id, { answers: [{ questionId: quiz.questions[0].id, selectedOptions: [1] }] }, key)
    expect([mine.status, theirs.status, quizSheet.status]).toEqual([201, 201, 201])
    expect(new Set([mine.data.id, theirs.data.id, quizSheet.data.id]).size).toBe(3)
  })

  test('the same key with a different answer is 409; a malformed key is 400; nothing is stored', async () => {
    const key = crypto.randomUUID()
    expect((await handIn(quiz.id, { answers: [{ questionId: quiz.questions[0].id, selectedOptions: [1] }] }, key)).status).toBe(201)
    const before = await count(quiz.id)
    const changed = await handIn(quiz.id, { answers: [{ questionId: quiz.questions[0].id, selectedOptions: [0] }] }, key)
    expect([changed.status, changed.code]).toEqual([409, 40900])
    for (const bad of ['', 'x'.repeat(256), 'has space', 'tab\there']) {
      const r = await handIn(quiz.id, { answers: [{ questionId: quiz.questions[0].id, selectedOptions: [1] }] }, bad)
      expect([JSON.stringify(bad).slice(0, 20), r.status, r.code]).toEqual([JSON.stringify(bad).slice(0, 20), 400, 40001])
      expect(r.data.fields[0].field).toBe('Idempotency-Key')
    }
    expect(await count(quiz.id)).toBe(before)
  })

  test('401 without credentials, 403 for the teacher, 404 for an unknown task (key or not)', async () => {
    const key = crypto.randomUUID()
    const anon = await w.api.post(`${w.base}/tasks/${essay.id}/submissions`, { json: { content: 'x' }, headers: { 'idempotency-key': key } })
    expect([anon.status, anon.code]).toEqual([401, 40100])
    const teacher = await handIn(essay.id, { content: 'x' }, key, w.teacher.token)
    expect([teacher.status, teacher.code]).toEqual([403, 40300])
    const unknown = await handIn('01900000-0000-7000-8000-000000000000', { content: 'x' }, key)
    expect([unknown.status, unknown.code]).toEqual([404, 40404])
  })
})
