import { describe, expect, test } from 'bun:test'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { tokenSigner } from '../../src/http/auth.ts'
import { ManualClock, signUp, testApp, testConfig, uniq, type Account, type Client, type TestContext } from '../support/harness.ts'
import { formOf } from './world.ts'

/** Targeted checks: token tampering, stored XSS, upload names and sizes, login throttling, cookies. */

const SECRET = testConfig().jwtSecret
const b64url = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url')
const payloadOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600

/** Each token is tried as a bearer header and as the session cookie. */
async function expectRefused(api: Client, token: string) {
  for (const how of ['bearer', 'cookie'] as const) {
    const r = await api.get('/auth/me', how === 'bearer' ? { token } : { cookie: `cls_session=${token}` })
    expect({ how, status: r.status, code: r.code, data: r.data }).toEqual({ how, status: 401, code: 40100, data: null })
  }
}

async function courseWorld(ctx: TestContext) {
  const { api } = ctx
  const [teacher, student] = await Promise.all([signUp(api, 'TEACHER'), signUp(api, 'STUDENT')])
  const c = await api.post('/courses', { token: teacher.token, json: { title: 'Spot checks', description: '' } })
  expect(c.status).toBe(201)
  expect((await api.post('/courses/join', { token: student.token, json: { inviteCode: c.data.inviteCode } })).status).toBe(200)
  const e = await api.post(`/courses/${c.data.id}/experiments`, {
    token: teacher.token,
    json: { title: 'Lab', description: '<p>x</p>', dueAt: new Date(Date.now() + 86400_000).toISOString() },
  })
  expect(e.status).toBe(201)
  return { teacher, student, courseId: c.data.id as string, experimentId: e.data.id as string }
}

describe('token tampering', async () => {
  const { api } = await testApp()
  const user = await signUp(api, 'TEACHER')
  const claims = payloadOf(user.token)

  test('the genuine token works, by header and by cookie (control)', async () => {
    expect((await api.get('/auth/me', { token: user.token })).data.id).toBe(user.id)
    expect((await api.get('/auth/me', { cookie: `cls_session=${user.token}` })).data.id).toBe(user.id)
  })

  test('alg "none" with the genuine claims → 401', async () => {
    for (const alg of ['none', 'None', 'NONE']) {
      await expectRefused(api, `${b64url({ alg, typ: 'JWT' })}.${b64url(claims)}.`)
    }
  })

  test('signed with another secret → 401', async () => {
    const forged = await tokenSigner('another-secret-another-secret-another-0123').sign({ ...(claims as any) })
    await expectRefused(api, forged)
  })

  test('claims changed under the genuine signature → 401', async () => {
    const [header, , signature] = user.token.split('.')
    const other = await signUp(api, 'TEACHER')
    await expectRefused(api, `${header}.${b64url({ ...claims, sub: other.id, sid: payloadOf(other.token).sid })}.${signature}`)
    await expectRefused(api, `${header}.${b64url({ ...claims, exp: (claims.exp as number) + 86400 })}.${signature}`)
  })

  test('truncated, empty-signature and garbage tokens → 401', async () => {
    const [header, payload] = user.token.split('.')
    for (const t of [`${header}.${payload}`, `${header}.${payload}.`, 'a.b.c', 'x'.repeat(5000), '...']) await expectRefused(api, t)
  })

  test('a JWT whose own exp has passed → 401, though its session is live', async () => {
    const expired = await tokenSigner(SECRET).sign({ sid: claims.sid as string, sub: user.id, exp: Math.floor(Date.now() / 1000) - 60 })
    await expectRefused(api, expired)
  })

  test('a validly signed token naming no session → 401', async () => {
    const t = await tokenSigner(SECRET).sign({ sid: '01900000-0000-7000-8000-000000000000', sub: user.id, exp: inAnHour() })
    await expectRefused(api, t)
  })

  test('a validly signed token whose sid is not a string, or missing → 401', async () => {
    for (const sid of [42, null, { id: claims.sid }, [claims.sid]]) {
      await expectRefused(api, await tokenSigner(SECRET).sign({ sid: sid as any, sub: user.id, exp: inAnHour() }))
    }
    await expectRefused(api, await tokenSigner(SECRET).sign({ sub: user.id, exp: inAnHour() }))
  })

  test('a session past its expiry → 401 (the server decides, not the token)', async () => {
    const clock = new ManualClock(new Date())
    const timed = await testApp({ clock, config: { tokenTtlSeconds: 600 } })
    const a = await signUp(timed.api)
    expect((await timed.api.get('/auth/me', { token: a.token })).status).toBe(200)
    clock.advance(601_000)
    await expectRefused(timed.api, a.token)
  })

  test('after logout the same token is refused by header and by cookie; the cookie is cleared', async () => {
    for (const logoutBy of ['bearer', 'cookie'] as const) {
      const login = await api.post('/auth/login', { json: { identifier: user.username, password: user.password } })
      const token = login.data.accessToken as string
      const out = await api.post('/auth/logout', logoutBy === 'bearer' ? { token } : { cookie: `cls_session=${token}` })
      expect({ status: out.status, code: out.code }).toEqual({ status: 200, code: 0 })
      const cleared = out.headers.get('set-cookie') ?? ''
      expect(cleared).toMatch(/cls_session=;/)
      expect(cleared).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i)
      await expectRefused(api, token)
      // Logging out twice is also a 401: the session is gone.
      expect((await api.post('/auth/logout', { token })).status).toBe(401)
    }
    // Other sessions of the same user are untouched.
    expect((await api.get('/auth/me', { token: user.token })).status).toBe(200)
  })
})

describe('cookie attributes (CSRF and theft)', async () => {
  const plain = await testApp()
  const secure = await testApp({ config: { cookieSecure: true } })

  test('the session cookie is HttpOnly, SameSite=Lax, Path=/, and carries an expiry', async () => {
    const a = await signUp(plain.api)
    const r = await plain.api.post('/auth/login', { json: { identifier: a.username, password: a.password } })
    const c = r.headers.get('set-cookie')!
    expect(c).toStartWith(`cls_session=${r.data.accessToken}`)
    expect(c).toMatch(/;\s*HttpOnly/i)
    expect(c).toMatch(/;\s*SameSite=Lax/i)
    expect(c).toMatch(/;\s*Path=\//i)
    expect(c).toMatch(/;\s*Expires=/i)
    expect(c).not.toMatch(/;\s*Secure/i)
  })

  test('with COOKIE_SECURE it is Secure as well', async () => {
    const a = await signUp(secure.api)
    const r = await secure.api.post('/auth/login', { json: { identifier: a.username, password: a.password } })
    expect(r.headers.get('set-cookie')).toMatch(/;\s*Secure/i)
    expect(r.headers.get('set-cookie')).toMatch(/;\s*HttpOnly/i)
  })

  test('a cross-site "simple" form post (text/plain) with the cookie is refused (415) and writes nothing', async () => {
    const t = await signUp(plain.api, 'TEACHER')
    const title = uniq('csrf')
    const r = await plain.api.post('/courses', {
      cookie: `cls_session=${t.token}`,
      raw: JSON.stringify({ title, description: 'x' }),
      headers: { 'content-type': 'text/plain' },
    })
    expect({ status: r.status, code: r.code }).toEqual({ status: 415, code: 41500 })
    const [row] = await plain.deps.sql`select count(*)::int as n from courses where title = ${title}`
    expect(row!.n).toBe(0)
  })
})

describe('login throttling', async () => {
  const { api } = await testApp({ config: { loginMaxFailures: 5, loginWindowSeconds: 900 } })

  test('after 5 failures for one identifier → 429 with Retry-After, even with the right password', async () => {
    const a = await signUp(api)
    for (let i = 0; i < 5; i++) {
      const r = await api.post('/auth/login', { json: { identifier: a.username, password: 'wrong password' } })
      expect({ status: r.status, code: r.code }).toEqual({ status: 401, code: 40101 })
    }
    for (const password of ['wrong password', a.password]) {
      const r = await api.post('/auth/login', { json: { identifier: a.username.toUpperCase(), password } })
      expect({ status: r.status, code: r.code }).toEqual({ status: 429, code: 42900 })
      const retry = Number(r.headers.get('retry-after'))
      expect(Number.isInteger(retry)).toBe(true)
      expect(retry).toBeGreaterThan(0)
      expect(retry).toBeLessThanOrEqual(900)
      expect(r.data).toEqual({ retryAfterSeconds: retry })
      expect(r.body).not.toHaveProperty('data.accessToken')
      expect(r.headers.get('set-cookie')).toBeNull()
    }
  })

  test('an unknown identifier is throttled the same way (no account enumeration)', async () => {
    const ghost = uniq('ghost')
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) statuses.push((await api.post('/auth/login', { json: { identifier: ghost, password: 'whatever1' } })).status)
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
  })
})

describe('stored XSS: rich text is sanitised on the way in, so it is safe on the way out', async () => {
  const ctx = await testApp()
  const { api } = ctx
  const w = await courseWorld(ctx)
  const T = { token: w.teacher.token }
  const S = { token: w.student.token }
  const base = `/courses/${w.courseId}`

  const VECTORS = [
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '<svg onload=alert(1)><circle/></svg>',
    '<a href="javascript:alert(1)">j1</a>',
    '<a href="JaVaScRiPt:alert(1)">j2</a>',
    '<a href="&#106;avascript:alert(1)">j3</a>',
    '<a href=" javascript:alert(1)">j4</a>',
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">d</a>',
    '<iframe src="https://evil.test"></iframe>',
    '<form action="https://evil.test"><input name=x></form>',
    '<style>body{display:none}</style>',
    '<p style="background:url(javascript:alert(1))" onclick="alert(1)">styled</p>',
    '<scr<script>ipt>alert(1)</scr</script>ipt>',
    '<math><mtext><img src=x onerror=alert(1)></mtext></math>',
    '<object data="x.swf"></object><embed src="x.swf">',
    '<a href="https://ok.test" onclick="alert(1)" target="_blank">fine</a>',
  ].join('')
  const UNSAFE = /<script|<img|<svg|<iframe|<form|<input|<style|<object|<embed|<math|\son\w+=|javascript:|data:text|style=/i

  function checkSafe(html: unknown) {
    expect(typeof html).toBe('string')
    expect(html as string).not.toMatch(UNSAFE)
    expect(html as string).toContain('<a href="https://ok.test" rel="noopener noreferrer nofollow" target="_blank">fine</a>')
  }

  test('announcements: the response, the list and the students’ notification carry no active content', async () => {
    const r = await api.post(`${base}/announcements`, { ...T, json: { title: 'XSS', content: `<p>Hi</p>${VECTORS}` } })
    expect({ status: r.status, code: r.code }).toEqual({ status: 201, code: 0 })
    checkSafe(r.data.content)
    expect(r.data.content).toStartWith('<p>Hi</p>')
    const list = await api.get(`${base}/announcements`, S)
    checkSafe(list.data.items.find((a: { id: string }) => a.id === r.data.id).content)
    const edited = await api.patch(`${base}/announcements/${r.data.id}`, { ...T, json: { content: `<p>Edited</p>${VECTORS}` } })
    expect(edited.status).toBe(200)
    checkSafe(edited.data.content)
    const inbox = await api.get('/notifications', S)
    const note = inbox.data.items.find((n: { type: string; title: string }) => n.type === 'ANNOUNCEMENT' && n.title.includes('XSS'))
    expect(note).toBeDefined()
    // Plain text: no markup at all (entities decoded to text are fine, clients render it as text).
    expect(note.content).not.toMatch(/<[a-z!/]/i)
  })

  test('experiment descriptions, task content, answers and feedback are sanitised too', async () => {
    const exp = await api.patch(`${base}/experiments/${w.experimentId}`, { ...T, json: { description: `<p>Lab</p>${VECTORS}` } })
    expect(exp.status).toBe(200)
    checkSafe(exp.data.description)
    checkSafe((await api.get(`${base}/experiments/${w.experimentId}`, S)).data.description)

    const unit = await api.post(`${base}/learning/units`, { ...T, json: { title: 'U' } })
    const point = await api.post(`${base}/learning/units/${unit.data.id}/points`, { ...T, json: { title: 'P' } })
    const task = await api.post(`${base}/learning/points/${point.data.id}/tasks`, {
      ...T,
      json: { title: 'T', taskKind: 'HOMEWORK', dueAt: '2099-12-31T00:00:00.000Z', taskType: 'MEDIA', materialType: 'TEXT', content: `<p>Read</p>${VECTORS}` },
    })
    expect(task.status).toBe(201)
    checkSafe(task.data.content)
    checkSafe((await api.get(`${base}/learning/tasks/${task.data.id}`, S)).data.content)

    const answer = await api.post(`${base}/learning/tasks/${task.data.id}/submissions`, { ...S, json: { content: `<p>Mine</p>${VECTORS}` } })
    expect(answer.status).toBe(201)
    checkSafe(answer.data.content)
    const graded = await api.patch(`${base}/learning/submissions/${answer.data.id}/grade`, { ...T, json: { score: 50, feedback: `<p>Ok</p>${VECTORS}` } })
    expect(graded.status).toBe(200)
    checkSafe(graded.data.feedback)
    const seen = await api.get(`${base}/learning/tasks/${task.data.id}/submissions`, S)
    checkSafe(seen.data.items[0].content)
    checkSafe(seen.data.items[0].feedback)
  })

  test('content that is nothing but active markup is refused (400), not stored empty', async () => {
    const r = await api.post(`${base}/announcements`, { ...T, json: { title: 'Empty', content: '<script>alert(1)</script><img src=x onerror=alert(1)>' } })
    expect({ status: r.status, code: r.code }).toEqual({ status: 400, code: 40001 })
  })

  test('resource links: only http(s) URLs are accepted', async () => {
    for (const externalUrl of ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd', 'vbscript:x', '//evil.test/x']) {
      const r = await api.post(`${base}/resources`, { ...T, form: formOf({ name: 'Bad', type: 'LINK', externalUrl }) })
      expect({ externalUrl, status: r.status, code: r.code }).toEqual({ externalUrl, status: 400, code: 40001 })
    }
  })
})

describe('upload file names', async () => {
  const ctx = await testApp()
  const { api } = ctx
  const w = await courseWorld(ctx)

  async function roundTrip(name: string, type = 'text/plain') {
    const up = await api.post(`/experiments/${w.experimentId}/submissions`, {
      token: w.student.token,
      form: formOf({ file: new File(['payload'], name, { type }) }),
    })
    expect({ status: up.status, code: up.code }).toEqual({ status: 201, code: 0 })
    const down = await api.get(`/submissions/${up.data.id}/file`, { token: w.teacher.token })
    expect(down.status).toBe(200)
    expect(down.body).toBe('payload')
    const [row] = await ctx.deps.sql<{ storage_key: string }[]>`select storage_key from experiment_submissions where id = ${up.data.id}`
    return { fileName: up.data.fileName as string, disposition: down.headers.get('content-disposition')!, headers: down.headers, key: row!.storage_key }
  }

  test.each([
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\windows\\system32\\evil.exe', 'evil.exe'],
    ['/absolute/path/report.txt', 'report.txt'],
    ['....//....//secret.txt', 'secret.txt'],
  ])('%s is stored as "%s", under a server-chosen key', async (name, expected) => {
    const r = await roundTrip(name)
    expect(r.fileName).toBe(expected)
    expect(r.disposition).toBe(`attachment; filename="${expected}"; filename*=UTF-8''${encodeURIComponent(expected)}`)
    expect(r.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })

  test('nothing is written outside the storage root', async () => {
    const root = (ctx.deps.storage as unknown as { root: string }).root
    await roundTrip('../../../../escape.txt')
    const entries = await readdir(root)
    expect(entries.filter((e) => e !== 'objects' && e !== 'tmp')).toEqual([])
    expect(await Bun.file(join(root, '..', 'escape.txt')).exists()).toBe(false)
  })

  test('quotes, semicolons, control and bidi-override characters cannot break or disguise the header', async () => {
    // Hand-written multipart: a browser would percent-encode these, an attacker does not.
    for (const [name, expected] of [
      // A quoted-pair is unescaped (RFC 9110 quoted-string), as the streaming parser (busboy) reads it.
      ['q\\"uote;x=1.txt', 'q"uote;x=1.txt'],
      ['evil\u202Egnp.exe', 'evilgnp.exe'],
      // Control characters percent-encoded (RFC 5987); raw ones make the part header malformed (below).
      ['*bell%07%1B.txt', 'bell.txt'],
    ] as [string, string][]) {
      const param = name.startsWith('*') ? `filename*=UTF-8''${name.slice(1)}` : `filename="${name}"`
      const body = `--xyz\r\nContent-Disposition: form-data; name="file"; ${param}\r\nContent-Type: text/plain\r\n\r\npayload\r\n--xyz--\r\n`
      const up = await api.post(`/experiments/${w.experimentId}/submissions`, {
        token: w.student.token,
        raw: body,
        headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      })
      expect({ name, status: up.status, code: up.code }).toEqual({ name, status: 201, code: 0 })
      expect({ name, fileName: up.data.fileName }).toEqual({ name, fileName: expected })
      const down = await api.get(`/submissions/${up.data.id}/file`, { token: w.teacher.token })
      const disposition = down.headers.get('content-disposition')!
      // Exactly one quoted ASCII name without quotes and one RFC 5987 name: nothing injected.
      expect(disposition).toMatch(/^attachment; filename="[\x20-\x21\x23-\x7e]*"; filename\*=UTF-8''[A-Za-z0-9%._~!$&+,;=:@`^|{}#-]*$/)
      expect(disposition).toContain(`filename*=UTF-8''${encodeURIComponent(expected).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`)
    }
     // Raw control characters in the part header: not a file part at all → refused, nothing stored.
    const raw = await api.post(`/experiments/${w.experimentId}/submissions`, {
      token: w.student.token,
      raw: `--xyz\r\nContent-Disposition: form-data; name="file"; filename="bell\u0007\u001b.txt"\r\nContent-Type: text/plain\r\n\r\npayload\r\n--xyz--\r\n`,
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
    })
    expect(raw.status).toBe(400)
  })

  test('an HTML upload is served as an attachment, nosniff and sandboxed', async () => {
    const r = await roundTrip('page.html', 'text/html')
    expect(r.disposition).toStartWith('attachment;')
    expect(r.headers.get('x-content-type-options')).toBe('nosniff')
    expect(r.headers.get('content-security-policy')).toContain('sandbox')
  })

  test('a resource upload with a traversal name is stored safely too', async () => {
    const up = await api.post(`/courses/${w.courseId}/resources`, {
      token: w.teacher.token,
      form: formOf({ name: 'Notes', type: 'FILE', file: new File(['notes'], '../../../etc/shadow') }),
    })
    expect({ status: up.status, code: up.code }).toEqual({ status: 201, code: 0 })
    expect(up.data.fileName).toBe('shadow')
    const down = await api.get(`/resources/${up.data.id}/file`, { token: w.student.token })
    expect(down.status).toBe(200)
    expect(down.headers.get('content-disposition')).toBe(`attachment; filename="shadow"; filename*=UTF-8''shadow`)
  })
})

describe('oversized uploads → 413 envelope, nothing stored', async () => {
  const ctx = await testApp({ config: { maxUploadBytes: 1024 } })
  const { api } = ctx
  const w = await courseWorld(ctx)
  const root = (ctx.deps.storage as unknown as { root: string }).root
  const stored = async () => (await readdir(join(root, 'objects'), { recursive: true }).catch(() => [] as string[])).filter((p) => /[0-9a-f-]{36}$/.test(p))

  const big = () => new File([new Uint8Array(4096).fill(65)], 'big.bin')

  test('experiment submission over MAX_UPLOAD_BYTES', async () => {
    const r = await api.post(`/experiments/${w.experimentId}/submissions`, { token: w.student.token, form: formOf({ file: big() }) })
    expect({ status: r.status, code: r.code }).toEqual({ status: 413, code: 41300 })
    expect(r.data).toEqual({ limitBytes: 1024 })
    expect(r.message).toEqual(expect.any(String))
  })

  test('resource upload over MAX_UPLOAD_BYTES', async () => {
    const r = await api.post(`/courses/${w.courseId}/resources`, { token: w.teacher.token, form: formOf({ name: 'Big', type: 'FILE', file: big() }) })
    expect({ status: r.status, code: r.code }).toEqual({ status: 413, code: 41300 })
  })

  test('a body far over the limit is refused by its declared length, and streamed (chunked) bodies are cut off', async () => {
    const form = formOf({ file: new File([new Uint8Array(200_000)], 'huge.bin') })
    const raw = await new Response(form).arrayBuffer()
    const type = new Response(form).headers.get('content-type')!
    const declared = await api.post(`/experiments/${w.experimentId}/submissions`, {
      token: w.student.token,
      raw,
      headers: { 'content-type': type, 'content-length': String(raw.byteLength) },
    })
    expect({ status: declared.status, code: declared.code }).toEqual({ status: 413, code: 41300 })
    const stream = new Response(raw).body!
    const chunked = await api.post(`/experiments/${w.experimentId}/submissions`, { token: w.student.token, raw: stream, headers: { 'content-type': type } })
    expect({ status: chunked.status, code: chunked.code }).toEqual({ status: 413, code: 41300 })
    expect(await stored()).toEqual([])
  })
})

describe('regressions found by this suite', async () => {
  const ctx = await testApp()
  const { api } = ctx
  const user: Account = await signUp(api)
  const w = await courseWorld(ctx)

  // The auth macro used to pass the token's `sid` claim straight into `where s.id = ${sid}`; a
  // non-UUID string made PostgreSQL raise 22P02 (→ 400). It is now checked before the query.
  test.each(['not-a-uuid', "' or 1=1 --", '01900000-0000-7000-8000-00000000000Z'])(
    'a validly signed token whose sid is %p → 401, not 400',
    async (sid) => {
      const token = await tokenSigner(SECRET).sign({ sid, sub: user.id, exp: inAnHour() })
      await expectRefused(api, token)
    },
  )

  // Bun gives a file part with an empty filename (`filename=""`, what `curl -F 'file=@x;filename='`
  // sends) a File whose `name` is undefined; cleanFileName(undefined) used to throw (→ 500).
  const emptyName = (field = 'file', extra = '') =>
    `${extra}--xyz\r\nContent-Disposition: form-data; name="${field}"; filename=""\r\nContent-Type: text/plain\r\n\r\npayload\r\n--xyz--\r\n`
  const part = (name: string, value: string) => `--xyz\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`

  test.each([
    ['experiment submission', () => `/experiments/${w.experimentId}/submissions`, () => w.student.token, ''],
    ['course resource', () => `/courses/${w.courseId}/resources`, () => w.teacher.token, part('name', 'Nameless') + part('type', 'FILE')],
  ])('%s: a file part with an empty filename → stored under the fallback name "file"', async (_label, path, token, fields) => {
    const r = await api.post(path(), {
      token: token(),
      raw: emptyName('file', fields),
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
    })
    expect({ status: r.status, code: r.code }).toEqual({ status: 201, code: 0 })
    expect(r.data.fileName).toBe('file')
  })
})
