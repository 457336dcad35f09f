import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { signUp, testApp, uniq } from '../support/harness.ts'
import { insertCourse } from '../support/fixtures.ts'

// Every account costs an argon2 hash; on a loaded machine a few of them exceed the 5 s default.
setDefaultTimeout(30_000)

const ZH = { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' }
const EN = { 'accept-language': 'en-GB,en;q=0.9' }
const password = 'correct horse battery'

describe('locale on the user: GET/PATCH /auth/me, register, login', async () => {
  const { api } = await testApp()

  test('a new user has chosen no language (null); PATCH sets zh-CN, en and back to null', async () => {
    const u = await signUp(api)
    const me = await api.get('/auth/me', { token: u.token })
    expect(me.status).toBe(200)
    expect(me.data.locale).toBeNull()

    const zh = await api.patch('/auth/me', { token: u.token, json: { locale: 'zh-CN' } })
    expect(zh.status).toBe(200)
    expect(zh.code).toBe(0)
    expect(zh.data).toMatchObject({ id: u.id, username: u.username, locale: 'zh-CN' })
    expect((await api.get('/auth/me', { token: u.token })).data.locale).toBe('zh-CN')
    // Remembered on the account, so a login from another device brings it along.
    const again = await api.post('/auth/login', { json: { identifier: u.username, password } })
    expect(again.data.user.locale).toBe('zh-CN')

    expect((await api.patch('/auth/me', { token: u.token, json: { locale: 'en' } })).data.locale).toBe('en')
    const cleared = await api.patch('/auth/me', { token: u.token, json: { locale: null } })
    expect(cleared.status).toBe(200)
    expect(cleared.data.locale).toBeNull()
  })

  test('displayName can change alone; the locale stays', async () => {
    const u = await signUp(api)
    await api.patch('/auth/me', { token: u.token, json: { locale: 'zh-CN' } })
    const r = await api.patch('/auth/me', { token: u.token, json: { displayName: '李老师' } })
    expect(r.status).toBe(200)
    expect(r.data).toMatchObject({ displayName: '李老师', locale: 'zh-CN' })
  })

  // One account for the refusals (each account costs two argon2 hashes).
  let refused: ReturnType<typeof signUp> | undefined
  test.each([['fr'], ['zh'], ['ZH-cn'], [''], [42]])('locale %p → 400 naming the field, nothing changed', async (locale) => {
    const u = await (refused ??= signUp(api))
    const r = await api.patch('/auth/me', { token: u.token, json: { locale } })
    expect(r.status).toBe(400)
    expect(r.code).toBe(40001)
    expect(r.data.fields.map((f: { field: string }) => f.field)).toContain('locale')
    expect((await api.get('/auth/me', { token: u.token })).data.locale).toBeNull()
  })

  test('an empty PATCH → 400; anonymous → 401', async () => {
    const u = await (refused ??= signUp(api))
    const empty = await api.patch('/auth/me', { token: u.token, json: {} })
    expect(empty.status).toBe(400)
    expect(empty.code).toBe(40001)
    const anon = await api.patch('/auth/me', { json: { locale: 'en' } })
    expect(anon.status).toBe(401)
    expect(anon.code).toBe(40100)
  })

  test('registration may choose the language; without it the user has chosen none', async () => {
    const username = uniq('loc')
    const r = await api.post('/auth/register', { json: { username, email: `${username}@x.test`, password, locale: 'zh-CN' } })
    expect(r.status).toBe(201)
    expect(r.data.locale).toBe('zh-CN')
    const bad = await api.post('/auth/register', { json: { username: uniq('loc'), email: `${uniq('e')}@x.test`, password, locale: 'de' } })
    expect(bad.status).toBe(400)
    expect(bad.data.fields.map((f: { field: string }) => f.field)).toContain('locale')
  })
})

describe('error messages in the reader\'s language', async () => {
  const { api, deps } = await testApp({ config: { loginMaxFailures: 2 } })

  test('401 anonymous: Accept-Language picks the language; the code is the same', async () => {
    const zh = await api.get('/auth/me', { headers: ZH })
    expect(zh.status).toBe(401)
    expect(zh.code).toBe(40100)
    expect(zh.message).toBe('你尚未登录，或登录已过期，请重新登录。')
    const en = await api.get('/auth/me', { headers: EN })
    expect(en.code).toBe(40100)
    expect(en.message).toBe('You are not logged in, or your login has expired. Please log in again.')
    // No header, or a language we do not speak: English.
    expect((await api.get('/auth/me')).message).toBe(en.message)
    expect((await api.get('/auth/me', { headers: { 'accept-language': 'fr-FR,de;q=0.8' } })).message).toBe(en.message)
  })

  test('401 bad login in Chinese; 400 login fields in Chinese', async () => {
    const r = await api.post('/auth/login', { headers: ZH, json: { identifier: uniq('nobody'), password: 'wrong password' } })
    expect(r.status).toBe(401)
    expect(r.code).toBe(40101)
    expect(r.message).toBe('用户名/邮箱或密码不正确。')
    const empty = await api.post('/auth/login', { headers: ZH, json: { identifier: '', password: '' } })
    expect(empty.status).toBe(400)
    expect(empty.code).toBe(40001)
    expect(empty.data.fields).toEqual([
      { field: 'identifier', message: '请输入用户名或邮箱' },
      { field: 'password', message: '请输入密码' },
    ])
    expect(empty.message).toBe('请求有误。identifier：请输入用户名或邮箱；password：请输入密码')
  })

  test('400 with fields: custom schema messages from the catalogue, zod\'s own by issue code, in both languages', async () => {
    const body = { username: 'a b', email: 'nope', password: 'short', role: 'ADMIN', extra: 1 }
    const zh = await api.post('/auth/register', { headers: ZH, json: body })
    expect(zh.status).toBe(400)
    expect(zh.code).toBe(40001)
    const byField = Object.fromEntries(zh.data.fields.map((f: { field: string; message: string }) => [f.field, f.message]))
    expect(byField).toMatchObject({
      username: '只能包含字母、数字以及“_”“.”“-”',
      email: '请输入有效的邮箱地址',
      password: '长度须为 8 到 128 个字符',
      role: '必须是以下之一：STUDENT, TEACHER',
    })
    expect(zh.message).toStartWith('请求有误。')
    expect(zh.message).toContain('password：长度须为 8 到 128 个字符')

    const en = await api.post('/auth/register', { headers: EN, json: body })
    expect(en.code).toBe(40001)
    const enFields = Object.fromEntries(en.data.fields.map((f: { field: string; message: string }) => [f.field, f.message]))
    expect(enFields).toMatchObject({ password: 'must be 8-128 characters', email: 'must be a valid email address' })
    expect(en.message).toStartWith('Invalid request. ')
  })

  test('a missing field and a wrong type are named in Chinese by issue code', async () => {
    const zh = await api.post('/auth/register', { headers: ZH, json: { username: uniq('u'), password } })
    expect(zh.status).toBe(400)
    expect(zh.data.fields).toEqual([{ field: 'email', message: '为必填项' }])
    const t = await signUp(api, 'TEACHER')
    const wrong = await api.post('/courses', { token: t.token, headers: ZH, json: { title: 42 } })
    expect(wrong.status).toBe(400)
    expect(wrong.data.fields[0]).toEqual({ field: 'title', message: '类型不正确（应为 string）' })
  })

  test('a field error thrown by a service (invalidField) is localized too', async () => {
    const t = await signUp(api, 'TEACHER')
    const course = await api.post('/courses', { token: t.token, json: { title: 'Algebra', description: 'x' } })
    const r = await api.post(`/courses/${course.data.id}/announcements`, {
      token: t.token,
      headers: ZH,
      json: { title: 'Hi', content: '<script>alert(1)</script>' },
    })
    expect(r.status).toBe(400)
    expect(r.code).toBe(40001)
    expect(r.data.fields).toEqual([{ field: 'content', message: '去除不安全的 HTML 后没有剩下可用的内容' }])
    expect(r.message).toBe('请求有误。content：去除不安全的 HTML 后没有剩下可用的内容')
  })

  test('logged in: the user\'s own locale wins over Accept-Language (403, 404)', async () => {
    const t = await signUp(api, 'TEACHER')
    const s = await signUp(api)
    const course = await insertCourse(deps.sql, t.id)
    await api.patch('/auth/me', { token: s.token, json: { locale: 'zh-CN' } })

    const forbidden = await api.get(`/courses/${course.id}`, { token: s.token, headers: EN })
    expect(forbidden.status).toBe(403)
    expect(forbidden.code).toBe(40300)
    expect(forbidden.message).toBe('你不是这门课程的成员。')

    const missing = await api.get('/courses/01900000-0000-7000-8000-000000000000', { token: s.token, headers: EN })
    expect(missing.status).toBe(404)
    expect(missing.code).toBe(40401)
    expect(missing.message).toBe('该课程不存在。')

    // A user who chose English reads English even from a Chinese browser.
    await api.patch('/auth/me', { token: t.token, json: { locale: 'en' } })
    const en = await api.post('/courses/join', { token: t.token, headers: ZH, json: { inviteCode: 'NOPE' } })
    expect(en.status).toBe(403)
    expect(en.message).toBe('Teacher accounts cannot join courses or hand in work; only student accounts can.')
  })

  test('409 with a parameter-free and with a templated message', async () => {
    const username = uniq('dup')
    await api.post('/auth/register', { json: { username, email: `${username}@x.test`, password } })
    const taken = await api.post('/auth/register', { headers: ZH, json: { username, email: `${uniq('o')}@x.test`, password } })
    expect(taken.status).toBe(409)
    expect(taken.code).toBe(40901)
    expect(taken.message).toBe('该用户名已被占用，请换一个。')

    const t = await signUp(api, 'TEACHER')
    const course = await api.post('/courses', { token: t.token, json: { title: 'Closed', description: 'x' } })
    await api.patch(`/courses/${course.data.id}`, { token: t.token, json: { joiningOpen: false } })
    const s = await signUp(api)
    await api.patch('/auth/me', { token: s.token, json: { locale: 'zh-CN' } })
    const closed = await api.post('/courses/join', { token: s.token, json: { inviteCode: course.data.inviteCode } })
    expect(closed.status).toBe(409)
    expect(closed.code).toBe(40903)
    expect(closed.message).toBe('这门课程目前不接受新成员加入，请联系老师开放加入。')
  })

  test('429 with its parameter (minutes) in Chinese; Retry-After unchanged', async () => {
    const u = await signUp(api)
    for (let i = 0; i < 2; i++) await api.post('/auth/login', { json: { identifier: u.username, password: 'wrong wrong' } })
    const r = await api.post('/auth/login', { headers: ZH, json: { identifier: u.username, password } })
    expect(r.status).toBe(429)
    expect(r.code).toBe(42900)
    expect(r.message).toMatch(/^登录失败次数过多，请 \d+ 分钟后再试。$/)
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(r.data.retryAfterSeconds).toBeGreaterThan(0)
  })

  test('plumbing errors (415, 405, unknown route) follow Accept-Language too', async () => {
    const r = await api.post('/auth/login', { headers: { ...ZH, 'content-type': 'text/plain' }, raw: 'x' })
    expect(r.status).toBe(415)
    expect(r.code).toBe(41500)
    expect(r.message).toBe('不接受 Content-Type text/plain，请使用 application/json 或 multipart/form-data。')
    const none = await api.get('/no-such-route', { headers: ZH })
    expect(none.status).toBe(404)
    expect(none.message).toBe('没有对应 GET /api/v1/no-such-route 的接口。')
  })
})

