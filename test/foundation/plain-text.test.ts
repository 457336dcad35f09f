import { describe, expect, test } from 'bun:test'
import { signUp, testApp, uniq } from '../support/harness.ts'

/** Titles and names are plain text everywhere: control characters are refused with the field named. */
describe('plain-text fields refuse control characters', async () => {
  const { api } = await testApp()
  const teacher = await signUp(api, 'TEACHER')
  const course = (await api.post('/courses', { token: teacher.token, json: { title: 'Plain text', description: 'line one\nline two' } })).data
  const token = teacher.token

  const bad = ['bell\u0007', 'esc\u001b[31mred', 'del\u007f', 'nul\u0000byte']
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
