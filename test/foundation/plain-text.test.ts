import { describe, expect, test } from 'bun:test'
import { signUp, testApp, uniq } from '../support/harness.ts'

/** Titles and names are plain text everywhere: control characters are refused with the field named. */
describe('plain-text fields refuse control characters', async () => {
  const { api } = await testApp()
  const teacher = await signUp(api, 'TEACHER')
  const course = (await api.post('/courses', { token: teacher.token, json: { title: 'Plain text', description: 'line one\nline two' } })).data
  const token = teacher.token

  // Issue 17, finding 6: C1 controls and bidi embedding/override/isolate controls too.
  const bad = [
    'bell\u0007',
    'esc\u001b[31mred',
    'del\u007f',
    'nul\u0000byte',
    'next line\u0085',
    'csi\u009b31m',
    'Homework \u202egpj.exe',
    'embed\u202altr\u202c',
    'isolate\u2066x\u2069',
    'first strong\u2068x\u2069',
  ]
  const cases: [string, (title: string) => Promise<{ status: number; code: number; data: any }>, string][] = [
    ['course title', (t) => api.post('/courses', { token, json: { title: t, description: '' } }), 'title'],
    ['learning unit title', (t) => api.post(`/courses/${course.id}/learning/units`, { token, json: { title: t } }), 'title'],
    ['experiment title', (t) => api.post(`/courses/${course.id}/experiments`, { token, json: { title: t, description: 'x', dueAt: '2027-01-01T00:00:00Z' } }), 'title'],
    [
      'resource name',
      (t) => {
        const form = new FormData()
        form.append('name', t)
        form.append('type', 'LINK')
        form.append('externalUrl', 'https://example.test/a')
        return api.post(`/courses/${course.id}/resources`, { token, form })
      },
      'name',
    ],
    [
      'display name',
      (t) => {
        const username = uniq('pt')
        return api.post('/auth/register', { json: { username, email: `${username}@example.test`, password: 'long enough password', displayName: t } })
      },
      'displayName',
    ],
  ]

  test.each(cases)('%s', async (_label, send, field) => {
    for (const value of bad) {
      const r = await send(value)
      expect([r.status, r.code]).toEqual([400, 40001])
      expect(r.data.fields).toContainEqual({ field, message: 'must not contain control characters' })
    }
    const fine = await send('Ünïcode — fine ✓')
    expect(fine.status).toBe(201)
  })

  test('multi-line fields keep their line breaks and tabs', async () => {
    const r = await api.post(`/courses/${course.id}/learning/units`, { token, json: { title: 'Unit', description: 'a\n\tb\r\nc' } })
    expect(r.status).toBe(201)
    expect(r.data.description).toBe('a\n\tb\r\nc')
    expect(course.description).toBe('line one\nline two')
  })
})

describe('the experiment note is plain text (issue 17)', async () => {
  const { api, deps } = await testApp()
  const teacher = await signUp(api, 'TEACHER')
  const student = await signUp(api, 'STUDENT')
  const course = (await api.post('/courses', { token: teacher.token, json: { title: 'Lab', description: '' } })).data
  await deps.sql`insert into course_members (course_id, user_id, joined_at) values (${course.id}, ${student.id}, now())`
  const experiment = (
    await api.post(`/courses/${course.id}/experiments`, { token: teacher.token, json: { title: 'E', description: 'x', dueAt: '2099-01-01T00:00:00Z' } })
  ).data
  const submit = (note: string) => {
    const form = new FormData()
    form.append('file', new File(['report'], 'report.txt', { type: 'text/plain' }))
    form.append('note', note)
    return api.post(`/experiments/${experiment.id}/submissions`, { token: student.token, form })
  }
  const count = async () =>
    (await deps.sql<{ n: number }[]>`select count(*)::int as n from experiment_submissions where experiment_id = ${experiment.id}`)[0]!.n

  test.each(['esc\u001b[2J', 'Homework \u202egpj.exe', 'c1\u0085', 'isolate\u2067x\u2069'])('%j → 400, nothing stored', async (note) => {
    const r = await submit(note)
    expect([r.status, r.code]).toEqual([400, 40001])
    expect(r.data.fields).toContainEqual({ field: 'note', message: 'must not contain control characters' })
    expect(await count()).toBe(0)
  })

  test('line breaks and tabs are kept', async () => {
    const r = await submit('line one\n\tline two')
    expect(r.status).toBe(201)
    // multipart/form-data may send the line break as CRLF
    expect(r.data.note).toMatch(/^line one\r?\n\tline two$/)
  })
})

