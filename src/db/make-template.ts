/**
 * `bun src/db/make-template.ts`: makes the shipped embedded cluster for the installed PGlite
 * (src/db/template/pgdata-pglite-<version>.tar.gz): a fresh initdb in a child process, as a
 * first start without it would run, cleanly shut down, packed with tar (ustar, sorted, no
 * owners). Run it after upgrading PGlite (a test fails until then); peaks near 900 MB once.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TEMPLATE_DIR, pgliteVersion, shippedTemplatePath } from './embedded-template.ts'

const work = await mkdtemp(join(tmpdir(), 'cls-template-'))
try {
  const pgdata = join(work, 'pgdata')
  const init = Bun.spawn([process.execPath, join(import.meta.dir, 'init-embedded.ts'), pgdata], { stdout: 'inherit', stderr: 'inherit' })
  if ((await init.exited) !== 0) throw new Error('initdb failed')
  await mkdir(TEMPLATE_DIR, { recursive: true })
  const path = shippedTemplatePath(await pgliteVersion())
  const tar = Bun.spawn(
    ['tar', '--format=ustar', '--sort=name', '--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '-C', pgdata, '-czf', path, '.'],
    { stdout: 'inherit', stderr: 'inherit' },
  )
  if ((await tar.exited) !== 0) throw new Error('tar failed')
  console.log(`${path}: ${Bun.file(path).size} bytes`)
} finally {
  await rm(work, { recursive: true, force: true })
}
