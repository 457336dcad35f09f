// A large course package imported (issue 51), in-process, on the embedded database (default) or
// DATABASE_URL. Target: a 500 MB package imports in under a minute with RSS growth ≤ 64 MB.
// The package is generated first (a Common Cartridge zip: IMPORT_FILES files of random bytes,
// which do not compress, each a FILE task, plus an HTML page per file that links it), stored as
// an upload would be, and imported by the job (src/modules/transfer/job.ts). RSS is sampled every
// 50 ms from just before the import starts. Not part of bun test.
//   bun run bench/import.ts        IMPORT_MB=500 IMPORT_FILES=100
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { makeZip } from 'client-zip'
import { loadConfig } from '../src/config.ts'
import { connectEmbedded, connectExternal } from '../src/db/connect.ts'
import { migrate } from '../src/db/migrate.ts'
import type { Deps } from '../src/deps.ts'
import { withServices } from '../src/services/index.ts'
import { systemClock } from '../src/lib/clock.ts'
import { newId } from '../src/lib/ids.ts'
import { createLogger } from '../src/lib/log.ts'
import { runImports } from '../src/modules/transfer/job.ts'
import { LocalDiskStorage } from '../src/storage/local-disk.ts'

const MB = 1024 * 1024
const TOTAL_MB = Number(process.env.IMPORT_MB ?? 500)
const FILES = Number(process.env.IMPORT_FILES ?? 100)
const fileBytes = Math.floor((TOTAL_MB * MB) / FILES)

const url = process.env.DATABASE_URL
const db = url ? await connectExternal(url, 10) : await connectEmbedded(undefined)
await migrate(db.sql)
const sql = db.sql
const root = await mkdtemp(join(tmpdir(), 'cls-bench-import-'))
const storage = await LocalDiskStorage.create(join(root, 'files'))
const config = { ...loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: root }), jwtSecret: 'bench-secret-bench-secret-bench-secret-0123456789' } as Deps['config']
const deps: Deps = withServices({ emailEnabled: Boolean(config.smtpUrl), sql, config, clock: systemClock, log: createLogger('silent'), storage, db: db.capability })

// The package.
const pkg = join(root, 'package.imscc')
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;')
const items: string[] = []
const resources: string[] = []
for (let i = 0; i < FILES; i++) {
  items.push(`<item identifier="IF${i}" identifierref="F${i}"><title>File ${i}</title></item><item identifier="IP${i}" identifierref="P${i}"><title>Page ${i}</title></item>`)
  resources.push(`<resource identifier="F${i}" type="webcontent" href="web_resources/f${i}.bin"><file href="web_resources/f${i}.bin"/></resource>`)
  resources.push(`<resource identifier="P${i}" type="webcontent" href="pages/p${i}.html"><file href="pages/p${i}.html"/></resource>`)
}
const manifest = `<?xml version="1.0" encoding="UTF-8"?><manifest identifier="bench" xmlns="http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"><metadata><schema>IMS Common Cartridge</schema><schemaversion>1.1.0</schemaversion></metadata><organizations><organization identifier="O" structure="rooted-hierarchy"><item identifier="R">${Array.from({ length: 10 }, (_, u) => `<item identifier="U${u}"><title>Unit ${u}</title>${items.filter((_, i) => i % 10 === u).join('')}</item>`).join('')}</item></organization></organizations><resources>${resources.join('')}</resources></manifest>`
function randomStream(bytes: number): ReadableStream<Uint8Array> {
  let left = bytes
  return new ReadableStream({
    pull(c) {
      if (left <= 0) return c.close()
      const n = Math.min(left, 1 * MB)
      const chunk = new Uint8Array(n)
      for (let o = 0; o < n; o += 65536) crypto.getRandomValues(chunk.subarray(o, Math.min(n, o + 65536)))
      left -= n
      c.enqueue(chunk)
    },
  })
}
async function* entries() {
  yield { name: 'imsmanifest.xml', input: manifest }
  for (let i = 0; i < FILES; i++) {
    yield { name: `pages/p${i}.html`, input: `<html><body><p>Page ${esc(String(i))}: <a href="../web_resources/f${i}.bin">the file</a></p></body></html>` }
    yield { name: `web_resources/f${i}.bin`, input: randomStream(fileBytes), size: fileBytes }
  }
}
const t0 = performance.now()
await makeZip(entries()).pipeTo(Writable.toWeb(createWriteStream(pkg)) as WritableStream<Uint8Array>)
const size = (await stat(pkg)).size
console.log(`package: ${(size / MB).toFixed(1)} MB (${FILES} files), written in ${((performance.now() - t0) / 1000).toFixed(1)} s`)

// Stored as the upload route stores it, then queued.
const stored = await storage.put(Bun.file(pkg))
const teacherId = newId()
await sql`insert into users (id, username, email, password_hash, display_name, role) values (${teacherId}, ${'bench' + teacherId.slice(-8)}, ${teacherId + '@example.test'}, 'x', 'Bench', 'TEACHER')`
const id = newId()
await sql`insert into course_imports (id, teacher_id, storage_key, file_name, file_size, created_at, updated_at) values (${id}, ${teacherId}, ${stored.key}, 'package.imscc', ${stored.size}, now(), now())`

Bun.gc(true)
const before = process.memoryUsage().rss
let peak = before
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50)
const start = performance.now()
await runImports(deps)
const seconds = (performance.now() - start) / 1000
clearInterval(sampler)
const [job] = await sql<{ state: string; report: any; error: any }[]>`select state, report, error from course_imports where id = ${id}`
console.log(`import: ${job!.state} in ${seconds.toFixed(1)} s (${(size / MB / seconds).toFixed(0)} MB/s); RSS ${(before / MB).toFixed(0)} MB before, peak growth ${((peak - before) / MB).toFixed(1)} MB`)
console.log(`created: ${JSON.stringify(job!.report?.created ?? job!.error)}`)
console.log(`target: < 60 s and ≤ 64 MB growth for 500 MB → ${seconds < 60 && peak - before <= 64 * MB ? 'met' : 'NOT met'}${TOTAL_MB < 500 ? ` (measured at ${TOTAL_MB} MB)` : ''}`)
await rm(root, { recursive: true, force: true })
await db.close()
