import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readWebBundle } from '../../src/web/assets.ts'
import { ROOT } from '../support/processes.ts'

const dirs: string[] = []
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

// Runs once, in the PostgreSQL pass of CI (it does not touch the database; a build costs seconds).
describe.skipIf(!process.env.DATABASE_URL)('web front end built ahead', () => {
test('build-web writes the front end once (as the image build does); WEB_DIST_DIR serves it as built', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cls-web-'))
  dirs.push(dir)
  const proc = Bun.spawn(['bun', 'run', 'src/cli/build-web.ts', dir], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
  expect(code).toBe(0)
  expect(out).toContain(`web front end built into ${dir}`)
  const bundle = await readWebBundle(dir)
  expect(bundle.indexHtml).toContain('<div id="root"></div>')
  for (const src of bundle.initialScripts) {
    const a = bundle.assets.get(src.replace('/assets/', ''))!
    expect(a.type).toContain('javascript')
    expect(Bun.gunzipSync(a.gzip)).toEqual(a.body)
  }
}, 120_000)
})
