import { describe, expect, test } from 'bun:test'
import { client, type Res } from '../support/harness.ts'
import {
  BAD_JSON_BODIES,
  BAD_PATH_IDS,
  BIG,
  HOSTILE_HTML,
  leafPaths,
  UNKNOWN_IDS,
  UNSAFE_MARKUP,
  withLeaf,
  wrongType,
} from './fuzz-inputs.ts'
import {
  authorisedCaller,
  brief,
  inChunks,
  isErrorEnvelope,
  liveRoutes,
  NOT_FOUND_CODE,
  pathFor,
  ROUTES,
  send,
  specOf,
  tokenFor,
  validBody,
  type LiveRoute,
} from './routes.ts'
import { buildWorld } from './world.ts'

/**
 * Every business route, enumerated from the app's live route table, is probed for
 * authentication, hostile path ids, unknown ids and hostile bodies. Nothing may answer 500.
 */
const w = await buildWorld()
const { api } = w
const ALL = liveRoutes(w.ctx.app)
const PROTECTED = ALL.filter((r) => ROUTES[r.key]?.access !== 'public')
const WITH_PARAMS = ALL.filter((r) => r.params.length > 0)
const WITH_BODY = ALL.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method))
const JSON_BODY = WITH_BODY.filter((r) => ROUTES[r.key]?.json)
const FORM_BODY = WITH_BODY.filter((r) => ROUTES[r.key]?.form)
const NO_BODY = WITH_BODY.filter((r) => !ROUTES[r.key]?.json && !ROUTES[r.key]?.form)
const each = (routes: LiveRoute[]) => routes.map((r) => [r.key, r] as const)

const JSON_TYPE = { 'content-type': 'application/json' }
// Anonymous by design: the docs, health/readiness, and the calendar feed (its token is the secret).
// And the LTI protocol endpoints (docs/lti.md): the platform's keys, the authorization endpoint
// (the session cookie), the token endpoint (the tool's signed assertion) and the services (its
// access token), tested with a real tool in test/lti/.
const INFRASTRUCTURE =
  /^(?:GET \/(?:v3\/api-docs|docs-ui\.html|docs-ui\/[^/]+|status\/(?:health|ready)|calendar\/:file)|(?:GET|POST) \/lti\/(?:jwks|authorize|token|deep-linking\/return|openid-configuration|register|ags\/courses\/:courseId\/line_items(?:\/:taskId(?:\/scores|\/results)?)?|nrps\/courses\/:courseId\/memberships))$/

/** Calls a route as its authorised caller on course A's side. */
async function asAuthorised(route: LiveRoute, path: string, o: { json?: unknown; form?: FormData; raw?: string; headers?: Record<string, string> }) {
  const token = await tokenFor(route, authorisedCaller(route, w.A, w), w)
  return send(api, route, path, { ...o, token }, w)
}

const isRedirect = (r: Res) => r.status >= 300 && r.status < 400 && r.headers.get('location') !== null

/** `ok` when the response is a well-formed 4xx error envelope or the route's success. */
function acceptable(route: LiveRoute, r: Res): boolean {
  if (r.status >= 400 && r.status < 500) return isErrorEnvelope(r)
  // Downloads (files, CSV) and redirects (single sign-on) succeed without an envelope.
  return r.status === specOf(route).ok && (r.code === 0 || (r.code === undefined && (typeof r.body === 'string' || isRedirect(r))))
}

const field = (data: unknown, path: string): unknown =>
  path.split('.').reduce<any>((node, k) => (node == null ? undefined : node[k]), data)

describe('the route table', () => {
  test('enumerates the business routes under /api/v1 (the suite cannot pass with none)', () => {
    expect(ALL.length).toBeGreaterThanOrEqual(50)
    expect(PROTECTED.length).toBeGreaterThanOrEqual(48)
    expect(WITH_PARAMS.length).toBeGreaterThanOrEqual(40)
    expect(WITH_BODY.length).toBeGreaterThanOrEqual(25)
  })

  test('every live route has a catalogue entry, and every entry a live route', () => {
    const live = ALL.map((r) => r.key).sort()
    expect(live.filter((k) => !ROUTES[k])).toEqual([])
    expect(Object.keys(ROUTES).filter((k) => !live.includes(k))).toEqual([])
  })

  test('every /api/v1 route is served under /core/api/v1 too, and nothing else is', () => {
    const core = liveRoutes(w.ctx.app, '/core/api/v1').map((r) => r.key).sort()
    expect(core).toEqual(ALL.map((r) => r.key).sort())
  })

  test('outside the two API prefixes there are only the anonymous infrastructure routes', () => {
    const others = w.ctx.app.routes
      .filter((r) => !r.path.startsWith('/api/v1/') && !r.path.startsWith('/core/api/v1/'))
      .map((r) => `${r.method} ${r.path}`)
    expect(others.length).toBeGreaterThan(0)
    expect(others.filter((k) => !INFRASTRUCTURE.test(k))).toEqual([])
  })

  test('only register and login are public (SPEC.md, Authentication 1), single sign-on, the signed one-click unsubscribe (RFC 8058), and the e-mail link routes (issue 21: the token, or nothing, is the credential)', () => {
    expect(ALL.filter((r) => specOf(r).access === 'public').map((r) => r.key).sort()).toEqual([
      'GET /auth/email/settings',
      'GET /auth/oidc/callback',
      'GET /auth/oidc/start',
      'GET /auth/providers',
      'POST /auth/email/verify',
      'POST /auth/login',
      'POST /auth/password/forgot',
      'POST /auth/password/reset',
      'POST /auth/register',
      'POST /email/unsubscribe',
    ])
  })
})

describe('anonymous requests → 401 (40100)', () => {
  const core = client(w.ctx.app, '/core/api/v1')
  test.each(each(PROTECTED))('%s', async (_key, route) => {
    const path = pathFor(route, w.A)
    const results = await Promise.all([api, core].map(async (c) => send(c, route, path, await validBody(route, w.A, w))))
    for (const r of results) {
      expect(brief(r)).toEqual({ status: 401, code: 40100, message: expect.any(String) })
      expect(r.data).toBeNull()
    }
  })

  test.each(each(ALL.filter((r) => specOf(r).access === 'public')))('%s is reachable without credentials', async (_key, route) => {
    const r = await send(api, route, pathFor(route, w.A), await validBody(route, w.A, w), w)
    expect({ status: r.status, code: r.code as number | undefined }).toEqual({ status: specOf(route).ok, code: isRedirect(r) ? undefined : 0 })
  })
})

describe('path ids that are not UUIDs → 400 or 404, never 500', () => {
  test.each(each(WITH_PARAMS))('%s', async (_key, route) => {
    const cases = route.params.flatMap((param) => BAD_PATH_IDS.map(([label, raw]) => ({ param, label, raw })))
    const failures: unknown[] = []
    await inChunks(cases, 10, async (c) => {
      const r = await asAuthorised(route, pathFor(route, w.A, { [c.param]: c.raw }), await validBody(route, w.A, w))
      if (![400, 404].includes(r.status) || !isErrorEnvelope(r)) failures.push({ param: c.param, input: c.label, ...brief(r) })
      // A 400 names the offending parameter.
      else if (r.status === 400 && r.code === 40001 && !r.data.fields.some((f: { field: string }) => f.field === c.param)) {
        failures.push({ param: c.param, input: c.label, fields: r.data.fields })
      }
    })
    expect(failures).toEqual([])
  })
})

describe('unknown but well-formed ids → 404 with the catalogue code of that id', () => {
  test.each(each(WITH_PARAMS))('%s', async (_key, route) => {
    const cases = route.params.flatMap((param) => UNKNOWN_IDS.map((id) => ({ param, id })))
    const failures: unknown[] = []
    await inChunks(cases, 10, async (c) => {
      const r = await asAuthorised(route, pathFor(route, w.A, { [c.param]: c.id }), await validBody(route, w.A, w))
      const expected = NOT_FOUND_CODE[c.param]
      if (r.status !== 404 || r.code !== expected || r.data !== null) failures.push({ param: c.param, id: c.id, expected, ...brief(r) })
    })
    expect(failures).toEqual([])
  })
})

describe('hostile JSON bodies', () => {
  const WHOLE = BAD_JSON_BODIES.filter(([label]) => !label.startsWith('100 000'))

  test.each(each(JSON_BODY))('%s: malformed, non-object and deeply nested bodies → 400', async (_key, route) => {
    const path = pathFor(route, w.A)
    const failures: unknown[] = []
    await inChunks(WHOLE, 10, async ([label, raw]) => {
      const r = await asAuthorised(route, path, { raw, headers: JSON_TYPE })
      if (r.status !== 400 || ![40000, 40001].includes(r.code) || !isErrorEnvelope(r)) failures.push({ input: label, ...brief(r) })
    })
    expect(failures).toEqual([])
  })

  test.each(each(NO_BODY))('%s (takes no body): any body → its success or a 4xx envelope', async (_key, route) => {
    const path = pathFor(route, w.A)
    const failures: unknown[] = []
    await inChunks(BAD_JSON_BODIES, 5, async ([label, raw]) => {
      const r = await asAuthorised(route, path, { raw, headers: JSON_TYPE })
      if (!acceptable(route, r)) failures.push({ input: label, ...brief(r) })
    })
    expect(failures).toEqual([])
  })

  test.each(each(JSON_BODY.filter((r) => !ROUTES[r.key]?.noStrings)))('%s: a 200 KB string in any string field → 400 (40001)', async (_key, route) => {
    const path = pathFor(route, w.A)
    const body = await specOf(route).json!(w.A, w)
    const leaves = leafPaths(body).filter((l) => typeof l.value === 'string')
    expect(leaves.length).toBeGreaterThan(0)
    const failures: unknown[] = []
    await inChunks(leaves, 5, async (leaf) => {
      const r = await asAuthorised(route, path, { json: withLeaf(await specOf(route).json!(w.A, w), leaf.path, BIG) })
      if (r.status !== 400 || r.code !== 40001) failures.push({ field: leaf.path, ...brief(r) })
    })
    expect(failures).toEqual([])
  })

  test.each(each(JSON_BODY))('%s: a value of the wrong type in any field → 400 (40001)', async (_key, route) => {
    const path = pathFor(route, w.A)
    const leaves = leafPaths(await specOf(route).json!(w.A, w))
    const failures: unknown[] = []
    await inChunks(leaves, 5, async (leaf) => {
      const r = await asAuthorised(route, path, { json: withLeaf(await specOf(route).json!(w.A, w), leaf.path, wrongType(leaf.value)) })
      if (r.status !== 400 || r.code !== 40001) failures.push({ field: leaf.path, ...brief(r) })
    })
    expect(failures).toEqual([])
  })

  test.each(each(JSON_BODY.filter((r) => specOf(r).enums?.length)))('%s: an unknown enum value → 400 naming the field', async (_key, route) => {
    const path = pathFor(route, w.A)
    const failures: unknown[] = []
    for (const enumPath of specOf(route).enums!) {
      for (const value of ['NOT_A_VALUE', '', 'student', 'TEACHER ', HOSTILE_HTML]) {
        const r = await asAuthorised(route, path, { json: withLeaf(await specOf(route).json!(w.A, w), enumPath, value) })
        const named = r.data?.fields?.some((f: { field: string }) => f.field === enumPath)
        if (r.status !== 400 || r.code !== 40001 || !named) failures.push({ field: enumPath, value, ...brief(r) })
      }
    }
    expect(failures).toEqual([])
  })

  test.each(each(JSON_BODY))('%s: hostile HTML in any string field → 4xx, or stored sanitised', async (_key, route) => {
    const spec = specOf(route)
    const path = pathFor(route, w.A)
    const leaves = leafPaths(await spec.json!(w.A, w)).filter((l) => typeof l.value === 'string')
    const failures: unknown[] = []
    await inChunks(leaves, 5, async (leaf) => {
      const rich = spec.rich?.includes(leaf.path) ?? false
      for (const value of [HOSTILE_HTML, `<p>Hello</p>${HOSTILE_HTML}<a href="javascript:alert(2)">x</a>`]) {
        const r = await asAuthorised(route, path, { json: withLeaf(await spec.json!(w.A, w), leaf.path, value) })
        if (!acceptable(route, r)) failures.push({ field: leaf.path, value, ...brief(r) })
        else if (r.status < 300 && rich) {
          // The echoed field itself (other fields may hold plain text that other requests set);
          // an optional field with nothing allowed left is stored as null.
          const stored = field(r.data, leaf.path)
          if (stored !== null && (typeof stored !== 'string' || UNSAFE_MARKUP.test(stored))) failures.push({ field: leaf.path, unsafe: stored })
        }
      }
    })
    expect(failures).toEqual([])
  })

  test.each(each(JSON_BODY.filter((r) => specOf(r).rich?.length)))('%s: rich text keeps the allowed markup only', async (_key, route) => {
    const spec = specOf(route)
    for (const richPath of spec.rich!) {
      const value = `<h2>Title</h2><p onclick="x()">Hello <strong>you</strong></p>${HOSTILE_HTML}<iframe src="https://evil.test"></iframe>`
      const r = await asAuthorised(route, pathFor(route, w.A), { json: withLeaf(await spec.json!(w.A, w), richPath, value) })
      expect({ status: r.status, code: r.code }).toEqual({ status: spec.ok, code: 0 })
      expect(field(r.data, richPath)).toBe('<h2>Title</h2><p>Hello <strong>you</strong></p>')
    }
  })

  test.each(each(JSON_BODY))('%s: control characters and lone surrogates → 4xx or success, never 500', async (_key, route) => {
    const path = pathFor(route, w.A)
    const leaves = leafPaths(await specOf(route).json!(w.A, w)).filter((l) => typeof l.value === 'string')
    const failures: unknown[] = []
    await inChunks(leaves, 5, async (leaf) => {
      for (const value of ['a\u0000b', 'a\ud800b', '\u202etxt.exe', 'a\u001bb']) {
        const r = await asAuthorised(route, path, { json: withLeaf(await specOf(route).json!(w.A, w), leaf.path, value) })
        if (!acceptable(route, r)) failures.push({ field: leaf.path, value: JSON.stringify(value), ...brief(r) })
      }
    })
    expect(failures).toEqual([])
  })

  test.each(each(JSON_BODY))('%s: __proto__ and constructor keys do not pollute prototypes', async (_key, route) => {
    const body = JSON.stringify(await specOf(route).json!(w.A, w))
    const raw = `{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},${body.slice(1)}`
    const r = await asAuthorised(route, pathFor(route, w.A), { raw, headers: JSON_TYPE })
    expect(acceptable(route, r)).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false)
  })
})

describe('hostile multipart bodies', () => {
  const textFields = (route: LiveRoute) => {
    const names: string[] = []
    specOf(route).form!(w.A, w).forEach((v, k) => {
      if (typeof v === 'string') names.push(k)
    })
    return names
  }
  const formWith = (route: LiveRoute, name: string, value: string) => {
    const f = specOf(route).form!(w.A, w)
    f.set(name, value)
    return f
  }

  test.each(each(FORM_BODY))('%s: JSON, url-encoded or no body → 415 (41500)', async (_key, route) => {
    const path = pathFor(route, w.A)
    const inputs: [string, { raw?: string; headers?: Record<string, string> }][] = [
      ...BAD_JSON_BODIES.slice(0, 4).map(([label, raw]) => [label, { raw, headers: JSON_TYPE }] as [string, { raw: string; headers: Record<string, string> }]),
      ['url-encoded', { raw: 'name=x&type=LINK', headers: { 'content-type': 'application/x-www-form-urlencoded' } }],
      ['no body', {}],
    ]
    for (const [label, o] of inputs) {
      const r = await asAuthorised(route, path, o)
      expect({ input: label, status: r.status, code: r.code }).toEqual({ input: label, status: 415, code: 41500 })
    }
  })

  test.each(each(FORM_BODY))('%s: broken multipart → 400 (40000)', async (_key, route) => {
    const path = pathFor(route, w.A)
    for (const [label, type, raw] of [
      ['garbage with a boundary', 'multipart/form-data; boundary=xyz', 'garbage'],
      ['no boundary', 'multipart/form-data', '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--xyz--'],
      ['unterminated part', 'multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc'],
    ]) {
      const r = await asAuthorised(route, path, { raw, headers: { 'content-type': type! } })
      expect({ input: label, status: r.status, code: r.code }).toEqual({ input: label, status: 400, code: 40000 })
    }
  })

  test.each(each(FORM_BODY))('%s: a 200 KB string in any text field → 400 (40001)', async (_key, route) => {
    const failures: unknown[] = []
    for (const name of textFields(route)) {
      const r = await asAuthorised(route, pathFor(route, w.A), { form: formWith(route, name, BIG) })
      if (r.status !== 400 || r.code !== 40001) failures.push({ field: name, ...brief(r) })
    }
    expect(failures).toEqual([])
  })

  test.each(each(FORM_BODY.filter((r) => specOf(r).enums?.length)))('%s: an unknown enum value → 400 naming the field', async (_key, route) => {
    for (const name of specOf(route).enums!) {
      const r = await asAuthorised(route, pathFor(route, w.A), { form: formWith(route, name, 'NOT_A_VALUE') })
      expect({ status: r.status, code: r.code }).toEqual({ status: 400, code: 40001 })
      expect(r.data.fields.map((f: { field: string }) => f.field)).toContain(name)
    }
  })

  test.each(each(FORM_BODY))('%s: hostile HTML or control characters in text fields → 4xx or success', async (_key, route) => {
    const failures: unknown[] = []
    for (const name of textFields(route)) {
      for (const value of [HOSTILE_HTML, 'a\u0000b', '\u202etxt.exe']) {
        const r = await asAuthorised(route, pathFor(route, w.A), { form: formWith(route, name, value) })
        if (!acceptable(route, r)) failures.push({ field: name, value: JSON.stringify(value), ...brief(r) })
      }
    }
    expect(failures).toEqual([])
  })

  test.each(each(FORM_BODY))('%s: a file field sent as text → 400 (40001)', async (_key, route) => {
    const f = specOf(route).form!(w.A, w)
    f.delete('externalUrl')
    f.set('file', 'not a file')
    if (f.has('type')) f.set('type', 'FILE')
    const r = await asAuthorised(route, pathFor(route, w.A), { form: f })
    expect({ status: r.status, code: r.code }).toEqual({ status: 400, code: 40001 })
    expect(r.data.fields.map((x: { field: string }) => x.field)).toContain('file')
  })
})

describe('hostile query strings', () => {
  const GETS = ALL.filter((r) => r.method === 'GET')
  const PAGE_INPUTS = ['page=-1', 'page=0', 'page=abc', 'page=1e309', 'page=1.5', 'pageSize=100000', 'pageSize=0', 'page=1&page=2']
  const OTHER_INPUTS = [
    'unreadOnly=maybe',
    'status=NOPE',
    'courseId=not-a-uuid',
    `studentId=${encodeURIComponent("'; drop table users;--")}`,
    'type=NOPE',
    `category=${'x'.repeat(5000)}`,
    '__proto__[polluted]=yes',
    'constructor[prototype][polluted]=yes',
    '%E0%A4%A=1',
    'a[b][c][d][e][f]=1',
    `q=${encodeURIComponent(HOSTILE_HTML)}`,
  ]

  test.each(each(GETS))('%s: never 500; bad paging → 400 where the route pages', async (_key, route) => {
    const base = pathFor(route, w.A).split('?')[0]!
    const token = await tokenFor(route, authorisedCaller(route, w.A, w), w)
    const plain = await send(api, route, base, { token }, w)
    expect(plain.status).toBe(specOf(route).ok)
    const pages = plain.data !== null && typeof plain.data === 'object' && 'pageSize' in plain.data
    const failures: unknown[] = []
    await inChunks([...PAGE_INPUTS, ...OTHER_INPUTS], 10, async (q) => {
      const r = await send(api, route, `${base}?${q}`, { token }, w)
      if (pages && PAGE_INPUTS.includes(q)) {
        if (r.status !== 400 || r.code !== 40001) failures.push({ q, ...brief(r) })
      } else if (!acceptable(route, r)) failures.push({ q: q.slice(0, 40), ...brief(r) })
    })
    expect(failures).toEqual([])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  test('the documented query checks: unreadOnly only true/false, status only the four values, courseId only a course of the caller', async () => {
    const t = { token: w.A.student.token }
    for (const [path, status, code] of [
      ['/notifications?unreadOnly=maybe', 400, 40001],
      ['/notifications?unreadOnly=TRUE', 400, 40001],
      ['/notifications?unreadOnly=true', 200, 0],
      ['/homeworks/mine?status=NOPE', 400, 40001],
      ['/homeworks/mine?status=submitted', 400, 40001],
      ['/homeworks/mine?status=SUBMITTED', 200, 0],
      ['/homeworks/mine?courseId=not-a-uuid', 400, 40001],
      [`/homeworks/mine?courseId=${w.B.course.id}`, 403, 40300],
      [`/homeworks/mine?courseId=${UNKNOWN_IDS[0]}`, 404, 40401],
      [`/courses/${w.A.course.id}/resources?type=NOPE`, 400, 40001],
    ] as [string, number, number][]) {
      const r = await api.get(path, t)
      expect({ path, status: r.status, code: r.code }).toEqual({ path, status, code })
    }
  })
})

describe('methods and headers', () => {
  const byPath = new Map<string, Set<string>>()
  for (const r of ALL) byPath.set(r.path, (byPath.get(r.path) ?? new Set()).add(r.method))

  test('every API path answers other methods with 405 and an Allow header taken from the route table', async () => {
    const failures: unknown[] = []
    const pattern = (path: string) => new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/:[A-Za-z]+/g, '[^/]+')}$`)
    await inChunks([...byPath.keys()], 8, async (path) => {
      const concrete = path.replace(/:([A-Za-z]+)/g, () => UNKNOWN_IDS[0]!)
      // Every method some route serves for this concrete URL (`/courses/join` is also `/courses/:courseId`).
      const allowed = new Set(ALL.filter((r) => pattern(r.path).test(concrete)).map((r) => r.method))
      if (allowed.has('GET')) allowed.add('HEAD')
      for (const m of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND'].filter((m) => !allowed.has(m))) {
        const r = await api.call(m, concrete, { token: w.A.teacher.token })
        const allow = new Set((r.headers.get('allow') ?? '').split(/,\s*/).filter(Boolean))
        if (r.status !== 405 || r.code !== 40500 || [...allowed].some((a) => !allow.has(a)) || allow.size !== allowed.size) {
          failures.push({ path, method: m, ...brief(r), allow: r.headers.get('allow') })
        }
      }
    })
    expect(failures).toEqual([])
  })

  test('odd credentials: the bearer header wins over the cookie, and anything malformed is 401', async () => {
    const good = w.A.teacher.token
    for (const [headers, status, code] of [
      [{ authorization: 'Bearer' }, 401, 40100],
      [{ authorization: `Bearer ${'x'.repeat(20_000)}` }, 401, 40100],
      [{ authorization: 'Basic dXNlcjpwYXNz' }, 401, 40100],
      [{ authorization: `Token ${good}` }, 401, 40100],
      [{ authorization: 'Bearer garbage', cookie: `cls_session=${good}` }, 401, 40100],
      [{ cookie: 'cls_session=%E0%A4%A' }, 401, 40100],
      [{ cookie: `cls_session=${good}x` }, 401, 40100],
      [{ authorization: `bearer ${good}` }, 200, 0],
    ] as [Record<string, string>, number, number][]) {
      const r = await api.get('/auth/me', { headers })
      expect({ headers: Object.keys(headers), status: r.status, code: r.code }).toEqual({ headers: Object.keys(headers), status, code })
    }
  })

  test('range requests on downloads never fail with 500', async () => {
    const failures: unknown[] = []
    const files = [`/resources/${w.A.resource.id}/file`, `/submissions/${w.A.experimentSubmission.id}/file`]
    for (const path of files) {
      for (const range of ['bytes=999999-', 'bytes=-0', 'bytes=abc', 'bytes=0-1,2-3', 'bytes=5-2', 'bytes=-99999999999999999999', 'bytes=0-99999999999999999999999', 'items=0-1', 'bytes=--1']) {
        const r = await api.get(path, { token: w.A.teacher.token, headers: { range } })
        const ok = [200, 206].includes(r.status) || (r.status === 416 && r.code === 41600 && /^bytes \*\/\d+$/.test(r.headers.get('content-range') ?? ''))
        if (!ok) failures.push({ path, range, ...brief(r) })
      }
    }
    expect(failures).toEqual([])
  })
})

describe('regressions found by this suite', () => {
  // Deeply nested JSON used to reach schema validation, where Elysia's ValidationError serialises
  // the whole value (quadratic in depth; past ~50 000 levels the stack overflowed and the error
  // was read as "too large"). Login is public, so anyone could stall the event loop. Bodies are
  // now refused after parsing when they nest deeper than 32 levels (plumbing.ts).
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)

  test('a 40 KB body of 20 000 nested arrays → 400 40000 (refused before validation)', async () => {
    const r = await api.post('/auth/login', { raw: nested(20_000), headers: JSON_TYPE })
    expect([r.status, r.code]).toEqual([400, 40000])
    expect(r.message).toContain('nests deeper')
  })

  test('a 200 KB body of 100 000 nested arrays (under the 1 MiB JSON limit) → 400, not 413', async () => {
    const r = await api.post('/auth/login', { raw: nested(100_000), headers: JSON_TYPE })
    expect([r.status, r.code]).toEqual([400, 40000])
  })
})
