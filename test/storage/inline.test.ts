import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rm } from 'node:fs/promises'
import type { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import { NOT_A_UUID, world, type World } from '../experiments/world.ts'
import { ManualClock, signUp, testApp, type TestContext } from '../support/harness.ts'
import { download, formOf, sampleBytes } from './helpers.ts'

/**
 * `?inline=1` on the two download routes: inline only for an allow-list of types that cannot
 * run script (images, audio, video; a PDF can: issue 27.5); always nosniff and sandboxed.
 */
let ctx: TestContext
let w: World
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
const BYTES = sampleBytes(4_000, 3)
const SANDBOX = "sandbox; default-src 'none'"
const resources: Record<string, string> = {}
let submissionId: string
let htmlSubmissionId: string

const TYPES: [name: string, type: string, inline: boolean][] = [
  ['photo.png', 'image/png', true],
  ['photo.jpg', 'image/jpeg', true],
  ['notes.pdf', 'application/pdf', false],
  ['talk.mp3', 'audio/mpeg', true],
  ['clip.mp4', 'video/mp4', true],
  ['clip.webm', 'video/webm', true],
  ['page.html', 'text/html', false],
  ['logo.svg', 'image/svg+xml', false],
  ['data.xml', 'application/xml', false],
  ['feed.xhtml', 'application/xhtml+xml', false],
  ['script.js', 'text/javascript', false],
  ['plain.txt', 'text/plain', false],
  ['blob.bin', 'application/octet-stream', false],
]

beforeAll(async () => {
  ctx = await testApp({ clock })
  w = await world(ctx, { students: 2 })
  for (const [name, type] of TYPES) {
    const res = await ctx.api.post(`/courses/${w.course.id}/resources`, {
      form: formOf({ name, type: 'FILE', file: new File([BYTES], name, { type }) }),
      token: w.teacher.token,
    })
    expect(res.status).toBe(201)
    resources[name] = res.data.id
  }
  const exp = await ctx.api.post(`/courses/${w.course.id}/experiments`, {
    json: { title: 'Optics', description: '<p>Lenses</p>', dueAt: '2026-11-25T00:00:00.000Z' },
    token: w.teacher.token,
  })
  const sub = (name: string, type: string) =>
    ctx.api.post(`/experiments/${exp.data.id}/submissions`, { form: formOf({ file: new File([BYTES], name, { type }) }), token: w.students[0]!.token })
  submissionId = (await sub('setup.jpg', 'image/jpeg')).data.id
  htmlSubmissionId = (await sub('report.html', 'text/html')).data.id
}, 60_000)
afterAll(async () => {
  await rm((ctx.deps.storage as LocalDiskStorage).root, { recursive: true, force: true })
})

describe('GET /resources/{resourceId}/file?inline=1', () => {
  test.each(TYPES)('%s (%s): inline %p', async (name, type, inline) => {
    const res = await download(ctx, `/resources/${resources[name]}/file?inline=1`, w.students[0]!.token)
    expect(res.status).toBe(200)
    expect(res.bytes).toEqual(BYTES)
    expect(res.headers.get('content-type')).toBe(type)
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('content-disposition')).toBe(`${inline ? 'inline' : 'attachment'}; filename="${name}"; filename*=UTF-8''${name}`)
    expect(res.headers.get('content-security-policy')).toBe(SANDBOX)
  })

  test('without ?inline (or with inline=0) every type is an attachment, sandboxed', async () => {
    for (const q of ['', '?inline=0']) {
      for (const name of ['photo.png', 'notes.pdf', 'clip.mp4']) {
        const res = await download(ctx, `/resources/${resources[name]}/file${q}`, w.students[0]!.token)
        expect(res.status).toBe(200)
        expect(res.headers.get('content-disposition')).toStartWith('attachment; ')
        expect(res.headers.get('content-security-policy')).toBe(SANDBOX)
        expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      }
    }
  })

  test('a byte range of an inline video keeps the inline headers (seeking in <video>)', async () => {
    const res = await download(ctx, `/resources/${resources['clip.mp4']}/file?inline=1`, w.students[0]!.token, { range: 'bytes=0-99' })
    expect(res.status).toBe(206)
    expect(res.bytes).toEqual(BYTES.slice(0, 100))
    expect(res.headers.get('content-range')).toBe(`bytes 0-99/${BYTES.length}`)
    expect(res.headers.get('content-disposition')).toStartWith('inline; ')
  })

  test('an unknown inline value is a 400 with the field named; the permission checks still apply', async () => {
    const bad = await ctx.api.get(`/resources/${resources['photo.png']}/file?inline=yes`, { token: w.students[0]!.token })
    expect(bad.status).toBe(400)
    expect(bad.code).toBe(40001)
    expect(JSON.stringify(bad.data)).toContain('inline')
    const anon = await ctx.api.get(`/resources/${resources['photo.png']}/file?inline=1`)
    expect(anon.status).toBe(401)
    const outsider = await signUp(ctx.api)
    const forbidden = await ctx.api.get(`/resources/${resources['photo.png']}/file?inline=1`, { token: outsider.token })
    expect(forbidden.status).toBe(403)
    expect((await ctx.api.get(`/resources/${NOT_A_UUID}/file?inline=1`, { token: w.students[0]!.token })).status).toBe(400)
  })
})

describe('GET /submissions/{submissionId}/file?inline=1', () => {
  test('a submitted photo is shown inline to its student and the teacher, not to another student', async () => {
    for (const token of [w.students[0]!.token, w.teacher.token]) {
      const res = await download(ctx, `/submissions/${submissionId}/file?inline=1`, token)
      expect(res.status).toBe(200)
      expect(res.bytes).toEqual(BYTES)
      expect(res.headers.get('content-disposition')).toBe(`inline; filename="setup.jpg"; filename*=UTF-8''setup.jpg`)
      expect(res.headers.get('content-security-policy')).toBe(SANDBOX)
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    }
    const other = await ctx.api.get(`/submissions/${submissionId}/file?inline=1`, { token: w.students[1]!.token })
    expect(other.status).toBe(403)
  })

  test('a submitted HTML page stays an attachment, sandboxed, even with ?inline=1', async () => {
    const res = await download(ctx, `/submissions/${htmlSubmissionId}/file?inline=1`, w.teacher.token)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-disposition')).toStartWith('attachment; ')
    expect(res.headers.get('content-security-policy')).toBe(SANDBOX)
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
  })
})
