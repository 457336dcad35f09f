import { afterAll, beforeAll, expect, test } from 'bun:test'
import { rm } from 'node:fs/promises'
import type { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import { choice, createTask, pointIn, shortAnswer, textTask, world, type World } from '../learning/helpers.ts'
import { formOf, sampleBytes } from '../storage/helpers.ts'
import { ManualClock } from '../support/harness.ts'

/**
 * Issue 29.5: for one student at one moment the gradebook said 3 submitted / 2 graded / 91.1,
 * "Learning progress" 2 / 1 / 90 (her graded experiment missing) and "Tasks 9" counted reading
 * material. One total: homework, quizzes and experiments — the gradebook's columns — everywhere.
 */
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
let w: World

beforeAll(async () => {
  w = await world({ clock })
}, 60_000)
afterAll(async () => {
  await rm((w.deps.storage as LocalDiskStorage).root, { recursive: true, force: true })
})

test('learning overview and gradebook give one student the same counts and average; material is not a task', async () => {
  const pointId = (await pointIn(w)).point.id
  const homework = await createTask(w.api, w.base, w.teacher, pointId, {
    title: 'Essay',
    taskKind: 'HOMEWORK',
    taskType: 'MEDIA',
    materialType: 'TEXT',
    content: '<p>Write</p>',
    dueAt: '2026-11-30T08:00:00.000Z',
  })
  const quiz = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Quiz', taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0], 1), shortAnswer(1)] })
  const reading = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Reading', ...textTask })
  const exp = (await w.api.post(`/courses/${w.course.id}/experiments`, { token: w.teacher.token, json: { title: 'Lab', description: '', dueAt: '2026-11-30T08:00:00.000Z' } })).data

  const hand = (taskId: string, json: unknown) => w.api.post(`${w.base}/tasks/${taskId}/submissions`, { token: w.student.token, json })
  const essay = (await hand(homework.id, { content: '<p>mine</p>' })).data
  await w.api.patch(`${w.base}/submissions/${essay.id}/grade`, { token: w.teacher.token, json: { score: 92.2 } })
  await hand(quiz.id, { answers: [{ questionId: quiz.questions[0].id, selectedOptions: [0] }, { questionId: quiz.questions[1].id, text: 'x' }] })
  // Reading material takes no answers (issue 56.6): nothing is kept that no total would count.
  const onReading = await hand(reading.id, { content: '<p>notes</p>' })
  expect([onReading.status, onReading.code, onReading.data]).toEqual([409, 40909, null])
  const lab = await w.api.post(`/experiments/${exp.id}/submissions`, { token: w.student.token, form: formOf({ file: new File([sampleBytes(100)], 'r.pdf', { type: 'application/pdf' }) }) })
  await w.api.patch(`/submissions/${lab.data.id}/grade`, { token: w.teacher.token, json: { score: 90 } })

  const book = (await w.api.get(`/courses/${w.course.id}/grades/overview`, { token: w.teacher.token })).data.students.find((s: any) => s.userId === w.student.id)
  expect(book).toMatchObject({ submissionCount: 3, gradedCount: 2, averageScore: 91.1 })
  for (const token of [w.teacher.token, w.student.token]) {
    const row = (await w.api.get(`${w.base}/overview`, { token })).data.students.find((s: any) => s.userId === w.student.id)
    expect(row).toMatchObject({ totalTasks: 3, submittedTasks: 3, gradedTasks: 2, averageScore: 91.1 })
  }
  // A reading that becomes homework takes answers and counts from then on (its sheet is graded 10).
  expect((await w.api.patch(`${w.base}/tasks/${reading.id}`, { token: w.teacher.token, json: { taskKind: 'HOMEWORK', dueAt: '2026-11-30T08:00:00.000Z' } })).status).toBe(200)
  const nowHomework = (await hand(reading.id, { content: '<p>notes</p>' })).data
  await w.api.patch(`${w.base}/submissions/${nowHomework.id}/grade`, { token: w.teacher.token, json: { score: 10 } })
  const after = (await w.api.get(`${w.base}/overview`, { token: w.student.token })).data.students[0]
  expect(after).toMatchObject({ totalTasks: 4, submittedTasks: 4, gradedTasks: 3, averageScore: 64.07 })
  const bookAfter = (await w.api.get(`/courses/${w.course.id}/grades/overview`, { token: w.teacher.token })).data.students.find((s: any) => s.userId === w.student.id)
  expect(bookAfter).toMatchObject({ submissionCount: 4, gradedCount: 3, averageScore: 64.07 })
})
