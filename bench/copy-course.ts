// Copying a big course into a new term (POST /courses/{id}/copy), in-process, on the embedded
// database (default) or DATABASE_URL. Target: a course of 2,000 tasks (half of them homework,
// a quarter quizzes) and 100 FILE resources copies in at most 5 s. Not part of bun test.
//   bun run bench/copy-course.ts            COPY_TASKS=2000 COPY_FILES=100 COPY_RUNS=3
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { connectEmbedded, connectExternal } from '../src/db/connect.ts'
import { migrate } from '../src/db/migrate.ts'
import type { Deps } from '../src/deps.ts'
import { systemClock } from '../src/lib/clock.ts'
import { createLogger } from '../src/lib/log.ts'
import { LocalDiskStorage } from '../src/storage/local-disk.ts'
import { withServices } from '../src/services/index.ts'

const TASKS = Number(process.env.COPY_TASKS ?? 2000)
const FILES = Number(process.env.COPY_FILES ?? 100)
const RUNS = Number(process.env.COPY_RUNS ?? 3)
const TARGET_MS = 5000

const url = process.env.DATABASE_URL
const db = url ? await connectExternal(url, 10) : await connectEmbedded(undefined)
await migrate(db.sql)
const sql = db.sql
const filesDir = await mkdtemp(join(tmpdir(), 'cls-bench-copy-'))
const storage = await LocalDiskStorage.create(filesDir)
const config = {
  ...loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: filesDir }),
  jwtSecret: 'bench-secret-bench-secret-bench-secret-0123456789',
  validateResponses: false,
} as Deps['config']
const app = buildApp(withServices({ emailEnabled: Boolean(config.smtpUrl), sql, config, clock: systemClock, log: createLogger('silent'), storage, db: db.capability }))
const call = async (method: string, path: string, body?: unknown, token?: string) => {
  const res = await app.handle(
    new Request(`http://localhost/api/v1${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  )
  const json = (await res.json()) as { data: any }
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json.data
}

const username = `bench${Date.now().toString(36)}`
await call('POST', '/auth/register', { username, email: `${username}@example.test`, password: 'correct horse battery', role: 'TEACHER' })
const token = (await call('POST', '/auth/login', { identifier: username, password: 'correct horse battery' })).accessToken as string
const course = await call('POST', '/courses', { title: 'Big course', description: 'Seeded for the copy benchmark.' }, token)

// Seeded set-based: 20 units × 10 points × TASKS/200 tasks, FILES resources with small files.
const resourceIds: string[] = []
for (let i = 0; i < FILES; i++) {
  const stored = await storage.put(new Blob([`file ${i} `.repeat(100)]))
  const [r] = await sql<{ id: string }[]>`
    insert into course_resources (id, course_id, name, resource_type, storage_key, file_name, file_size, content_type, created_by)
    values (gen_uuid_v7(), ${course.id}, ${`Resource ${i}`}, 'FILE', ${stored.key}, ${`r${i}.txt`}, ${stored.size}, 'text/plain',
            (select teacher_id from courses where id = ${course.id}))
    returning id`
  resourceIds.push(r!.id)
}
const questions = JSON.stringify([
  { id: crypto.randomUUID(), type: 'SINGLE_CHOICE', stem: 'Pick B', options: ['A', 'B', 'C'], correctOptions: [1], points: 2 },
  { id: crypto.randomUUID(), type: 'SHORT_ANSWER', stem: 'Why?', options: [], correctOptions: [], points: 1 },
])
await sql`
  with units as (
    insert into learning_units (id, course_id, title, description, sort_order)
    select gen_uuid_v7(), ${course.id}, 'Unit ' || u, 'About unit ' || u, u from generate_series(1, 20) u
    returning id, sort_order
  )
  insert into knowledge_points (id, unit_id, course_id, title, description, sort_order)
  select gen_uuid_v7(), units.id, ${course.id}, 'Point ' || p, '', p from units cross join generate_series(1, 10) p`
await sql`
  insert into learning_tasks (id, point_id, course_id, title, task_kind, task_type, material_type, content, resource_id,
                              questions, start_at, due_at, sort_order)
  select gen_uuid_v7(), p.id, p.course_id, 'Task ' || n,
         case when n % 2 = 0 then 'HOMEWORK' else 'LEARNING' end,
         case when n % 4 = 1 then 'QUIZ' else 'MEDIA' end,
         case when n % 4 = 1 then null when n % 4 = 3 and ${FILES}::int > 0 then 'FILE' else 'TEXT' end,
         '<p>' || repeat('Lorem ipsum dolor sit amet. ', 20) || '</p>',
         case when n % 4 = 3 and ${FILES}::int > 0 then (${resourceIds}::uuid[])[1 + (n % greatest(${FILES}::int, 1))] end,
         case when n % 4 = 1 then ${questions}::jsonb else '[]'::jsonb end,
         case when n % 2 = 0 then now() + n * interval '1 hour' end,
         case when n % 2 = 0 then now() + n * interval '1 hour' + interval '7 days' end,
         n
    from knowledge_points p cross join generate_series(1, ${Math.ceil(TASKS / 200)}::int) n
   where p.course_id = ${course.id}`
await sql`
  insert into experiments (id, course_id, title, description, due_at)
  select gen_uuid_v7(), ${course.id}, 'Lab ' || n, '<p>Measure</p>', now() + n * interval '1 day' from generate_series(1, 20) n`
const [{ tasks }] = await sql<[{ tasks: number }]>`select count(*)::int as tasks from learning_tasks where course_id = ${course.id}`

const times: number[] = []
for (let i = 0; i < RUNS; i++) {
  const t = performance.now()
  const copy = await call('POST', `/courses/${course.id}/copy`, { title: `Copy ${i}`, shiftDays: 182 }, token)
  times.push(performance.now() - t)
  const [{ copied }] = await sql<[{ copied: number }]>`select count(*)::int as copied from learning_tasks where course_id = ${copy.id}`
  if (copied !== tasks) throw new Error(`copied ${copied} of ${tasks} tasks`)
}
times.sort((a, b) => a - b)
const median = times[Math.floor(times.length / 2)]!
console.log(
  JSON.stringify({
    database: url ? 'postgresql' : 'embedded',
    tasks,
    files: FILES,
    runs: times.map((t) => Math.round(t)),
    medianMs: Math.round(median),
    targetMs: TARGET_MS,
    ok: median <= TARGET_MS,
  }),
)
await rm(filesDir, { recursive: true, force: true })
await db.close()
process.exit(median <= TARGET_MS ? 0 : 1)
