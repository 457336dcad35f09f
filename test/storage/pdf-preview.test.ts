import { describe, expect, test } from 'bun:test'
import { world } from '../experiments/world.ts'
import { formOf } from '../storage/helpers.ts'
import { testApp } from '../support/harness.ts'

/** A PDF that runs its own script when opened (`/OpenAction` JavaScript). */
const SCRIPTED_PDF = new TextEncoder().encode(
  '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R /OpenAction 3 0 R >> endobj\n' +
    '2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n' +
    "3 0 obj << /S /JavaScript /JS (app.alert('from the pdf')) >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
)

/**
 * Issue 27, finding 5: inline previews never run a document's own script. A PDF is always served
 * as an attachment, sandboxed, even with `?inline=1` (the browser's viewer would run its script).
 */
describe('PDF downloads (issue 27.5)', async () => {
  const ctx = await testApp()
  const w = await world(ctx, { students: 1 })
  const up = await ctx.api.post(`/courses/${w.course.id}/resources`, {
    form: formOf({ name: 'Scripted', type: 'FILE', file: new File([SCRIPTED_PDF], 'scripted.pdf', { type: 'application/pdf' }) }),
    token: w.teacher.token,
  })

  test.each(['?inline=1', '?inline=true', '', '?inline=0'])('GET …/file%s → attachment, sandboxed, nosniff', async (q) => {
    expect(up.status).toBe(201)
    const res = await ctx.app.handle(
      new Request(`http://localhost/api/v1/resources/${up.data.id}/file${q}`, { headers: { authorization: `Bearer ${w.students[0]!.token}` } }),
    )
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/pdf')
    expect(res.headers.get('content-disposition')).toStartWith('attachment; ')
    expect(res.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'")
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(SCRIPTED_PDF)
  })
})
