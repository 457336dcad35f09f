import { describe, expect, test } from 'bun:test'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { ManualClock, signUp, testApp, type Account } from '../support/harness.ts'

/**
 * One course's life across features, over HTTP only: the seams between courses, learning,
 * reminders, notifications, experiments and grades (each feature's own tests go deeper).
 */
describe('a course from creation to grades', async () => {
  const clock = new ManualClock('2026-11-22T08:00:00.000Z')
  const { api, deps } = await testApp({ clock })
  const at = (iso: string) => new Date(iso)
  const teacher = await signUp(api, 'TEACHER')
  const early = await signUp(api, 'STUDENT', 'Early Student')
  const late = await signUp(api, 'STUDENT', 'Late Student')

  const course = (await api.post('/courses', { json: { title: 'Databases', description: 'SQL and more' }, token: teacher.token })).data
  expect((await api.post('/courses/join', { json: { inviteCode: ` ${course.inviteCode.toLowerCase()} ` }, token: early.token })).status).toBe(200)
  const unit = (await api.post(`/courses/${course.id}/learning/units`, { json: { title: 'Week 1' }, token: teacher.token })).data
  const point = (await api.post(`/courses/${course.id}/learning/units/${unit.id}/points`, { json: { title: 'Joins' }, token: teacher.token })).data

  const homework = await api.post(`/courses/${course.id}/learning/points/${point.id}/tasks`, {
    token: teacher.token,
    json: {
      title: 'Join practice',
      taskKind: 'HOMEWORK',
      taskType: 'QUIZ',
      startAt: '2026-11-23T08:00:00.000Z',
      dueAt: '2026-11-26T08:00:00.000Z',
      questions: [
        { type: 'SINGLE_CHOICE', stem: 'Which join keeps unmatched left rows?', options: ['INNER', 'LEFT'], correctOptions: [1], points: 2 },
        { type: 'SHORT_ANSWER', stem: 'Explain a semi-join.' },
      ],
    },
  })
  const taskId: string = homework.data.id
  const reminders = () => api.get(`/courses/${course.id}/homeworks/${taskId}/reminders`, { token: teacher.token })
  const inbox = (a: Account) => api.get('/notifications', { token: a.token })

  test('creating homework schedules three reminders for the enrolled student', async () => {
    expect(homework.status).toBe(201)
    const r = await reminders()
    expect(r.status).toBe(200)
    const live = r.data.filter((e: any) => e.state === 'PENDING')
    expect(live.map((e: any) => [e.targetUserId, e.triggerType, e.scheduledAt])).toEqual([
      [early.id, 'START', '2026-11-23T08:00:00.000Z'],
      [early.id, 'BEFORE_DUE_24H', '2026-11-25T08:00:00.000Z'],
      [early.id, 'DUE', '2026-11-26T08:00:00.000Z'],
    ])
  })

  test('a student who joins an open homework gets START now, then the reminders still ahead', async () => {
    clock.set('2026-11-23T09:00:00.000Z') // the homework opened an hour ago
    expect((await api.post('/courses/join', { json: { inviteCode: course.inviteCode }, token: late.token })).status).toBe(200)
    const mine = (await reminders()).data.filter((e: any) => e.targetUserId === late.id)
    expect(mine.map((e: any) => [e.triggerType, e.scheduledAt])).toEqual([
      ['START', '2026-11-23T09:00:00.000Z'],
      ['BEFORE_DUE_24H', '2026-11-25T08:00:00.000Z'],
      ['DUE', '2026-11-26T08:00:00.000Z'],
    ])
  })

  test('the scheduler delivers START; the homework centre shows the red dot', async () => {
    const sent = await dispatch(deps.sql, clock.now())
    expect(sent.sent).toBeGreaterThanOrEqual(1)
    const n = await inbox(early)
    const reminder = n.data.items.find((i: any) => i.type === 'HOMEWORK_REMINDER')
    expect(reminder).toMatchObject({ actionPath: `/courses/${course.id}?taskId=${taskId}`, readAt: null })
    const centre = await api.get(`/courses/${course.id}/homeworks`, { token: early.token })
    expect(centre.data.unreadReminderCount).toBe(1)
    expect(centre.data.items[0]).toMatchObject({ taskId, status: 'IN_PROGRESS', remainingSeconds: 3 * 86400 - 3600 })
    // The late joiner's START ("new homework") went out in the same scan.
    expect((await api.get(`/courses/${course.id}/homeworks`, { token: late.token })).data.unreadReminderCount).toBe(1)
  })

  test('moving the due date cancels pending reminders and schedules new ones', async () => {
    const moved = await api.patch(`/courses/${course.id}/learning/tasks/${taskId}`, { json: { dueAt: '2026-11-27T08:00:00.000Z' }, token: teacher.token })
    expect(moved.status).toBe(200)
    const events = (await reminders()).data
    const pendingDue = events.filter((e: any) => e.state === 'PENDING' && e.triggerType === 'DUE')
    expect(pendingDue.map((e: any) => e.scheduledAt)).toEqual(['2026-11-27T08:00:00.000Z', '2026-11-27T08:00:00.000Z'])
    expect(events.filter((e: any) => e.state === 'CANCELED' && e.scheduledAt === '2026-11-26T08:00:00.000Z')).toHaveLength(2)
  })

  test('a student who submitted gets no due reminders; grading reaches the inbox; the overview adds it up', async () => {
    const quiz = (await api.get(`/courses/${course.id}/learning/tasks/${taskId}`, { token: early.token })).data
    expect(quiz.questions[0].correctOptions).toBeUndefined()
    const sub = await api.post(`/courses/${course.id}/learning/tasks/${taskId}/submissions`, {
      token: early.token,
      json: { answers: [{ questionId: quiz.questions[0].id, selectedOptions: [1] }, { questionId: quiz.questions[1].id, text: '<p>Only <b>exists</b>.</p><script>x</script>' }] },
    })
    expect(sub.status).toBe(201)
    expect(sub.data).toMatchObject({ status: 'SUBMITTED', autoScore: 100, late: false })

    clock.set('2026-11-27T08:00:01.000Z')
    await dispatch(deps.sql, clock.now())
    const earlyReminders = (await inbox(early)).data.items.filter((i: any) => i.type === 'HOMEWORK_REMINDER')
    expect(earlyReminders).toHaveLength(1) // START only
    const lateReminders = (await inbox(late)).data.items.filter((i: any) => i.type === 'HOMEWORK_REMINDER')
    expect(lateReminders).toHaveLength(3) // START at joining, BEFORE_DUE_24H and DUE

    const graded = await api.patch(`/courses/${course.id}/learning/submissions/${sub.data.id}/grade`, { json: { score: 92.5, feedback: 'Good' }, token: teacher.token })
    expect(graded.status).toBe(200)
    const gradedNote = (await inbox(early)).data.items.find((i: any) => i.type === 'SUBMISSION_GRADED')
    expect(gradedNote).toBeDefined()

    const centre = await api.get('/homeworks/mine', { token: early.token })
    expect(centre.data.items.find((i: any) => i.taskId === taskId)).toMatchObject({ status: 'SUBMITTED', score: 92.5 })

    const overview = await api.get(`/courses/${course.id}/grades/overview`, { token: teacher.token })
    const row = overview.data.students.find((s: any) => s.userId === early.id)
    expect(row).toMatchObject({ submissionCount: 1, gradedCount: 1, averageScore: 92.5 })
    const lateRow = overview.data.students.find((s: any) => s.userId === late.id)
    expect(lateRow).toMatchObject({ submissionCount: 0, gradedCount: 0, averageScore: null })
  })

  test('an announcement reaches every student inbox once', async () => {
    const a = await api.post(`/courses/${course.id}/announcements`, { json: { title: 'Exam date', content: '<p>Friday</p>' }, token: teacher.token })
    expect(a.status).toBe(201)
    for (const s of [early, late]) {
      const items = (await inbox(s)).data.items.filter((i: any) => i.type === 'ANNOUNCEMENT')
      expect(items.map((i: any) => i.title)).toEqual(['Exam date'])
    }
    expect((await inbox(teacher)).data.items.filter((i: any) => i.type === 'ANNOUNCEMENT')).toHaveLength(0)
  })
})
