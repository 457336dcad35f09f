import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import { buildApp } from '../../src/app.ts'
import { connectEmbedded, type Sql } from '../../src/db/connect.ts'
import { migrate } from '../../src/db/migrate.ts'
import type { Deps } from '../../src/deps.ts'
import { systemClock } from '../../src/lib/clock.ts'
import { createLogger } from '../../src/lib/log.ts'
import { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import { createCourse, join } from '../courses/world.ts'
import { countingSql } from '../support/counting-sql.ts'
import { scratchDatabase } from '../support/processes.ts'
import { client, signUp, testConfig, uniq, usingExternalDb, type Account, type Client } from '../support/harness.ts'
import { tmpdir } from 'node:os'
import { join as joinPath } from 'node:path'
import { withServices } from '../../src/services/index.ts'

/*
 * Issue 23: every roster read costs the same for a course of 30 and of 100,000 students.
 * GET /courses (memberCount) and GET /courses/{id}/members (first page, a page by cursor deep in
 * the list) are called for a 30-student seminar and a 100,000-student course in the same
 * database: the same number of statements, and on PostgreSQL each statement's plan reads
 * course_members through an index (the members page: an index-only scan), never a sequential
 * scan. The embedded database (no planner statistics to speak of, one connection) runs the
 * statement counts with 3,000 students.
 */
const BIG = usingExternalDb() ? 100_000 : 3_000
const SEMINAR = 30

let sql: Sql
let explainSql: Sql | undefined
let drop: (() => Promise<void>) | undefined
let api: Client
const seen: { query: string; params: unknown[] }[] = []
let recording = false
let owner: Account
let seminarStudent: Account
let big: { id: string }
let seminar: { id: string }

beforeAll(async () => {
  const debug = (_conn: number, query: string, params: unknown[]) => {
    // postgres.js reads array types from pg_catalog once per connection: not the app's statement.
    if (recording && !query.includes('pg_catalog.pg_type')) seen.push({ query, params })
  }
  if (usingExternalDb()) {
    const scratch = await scratchDatabase('cls_roster')
    drop = scratch.drop
    sql = postgres(scratch.url, { max: 4, onnotice: () => {}, debug }) as unknown as Sql
    explainSql = postgres(scratch.url, { max: 1, onnotice: () => {} }) as unknown as Sql
  } else {
    const db = await connectEmbedded(undefined)
    sql = countingSql(db.sql, (query) => recording && seen.push({ query, params: [] }))
  }
  await migrate(sql)
  const deps: Deps = withServices({
    sql,
    emailEnabled: false,
    config: testConfig(),
    clock: systemClock,
    log: createLogger('silent'),
    storage: new LocalDiskStorage(joinPath(tmpdir(), uniq('cls-files-'))),
    db: { kind: usingExternalDb() ? 'external' : 'embedded', maxConnections: usingExternalDb() ? 4 : 1 },
  })
  api = client(buildApp(deps))
  owner = await signUp(api, 'TEACHER', 'Owner')
  seminarStudent = await signUp(api, 'STUDENT', 'Seminar student')
  big = await createCourse(api, owner, 'MOOC')
  const sem = await createCourse(api, owner, 'Seminar')
  seminar = sem
  await join(api, seminarStudent, sem.inviteCode)
  await bulkMembers(seminar.id, SEMINAR - 1, 'sem')
  await bulkMembers(big.id, BIG, 'mooc')
  if (usingExternalDb()) await sql`vacuum analyze course_members`
  else await sql`analyze course_members`
}, 600_000)

afterAll(async () => {
  if (usingExternalDb()) {
    await sql.end()
    await explainSql!.end()
    await drop?.()
  }
})

/** `n` students of `courseId`, made in two set-based statements (generate_series). */
async function bulkMembers(courseId: string, n: number, tag: string) {
  const prefix = uniq(tag)
  await sql`
    insert into users (id, username, email, password_hash, display_name, role)
    select gen_uuid_v7(), ${prefix} || '_' || g, ${prefix} || '_' || g || '@example.test', 'x', 'Student ' || g, 'STUDENT'
      from generate_series(1, ${n}::int) g`
  await sql`
    insert into course_members (course_id, user_id, joined_at)
    select ${courseId}, u.id, now() + make_interval(secs => row_number() over (order by u.id))
      from users u where u.username like ${prefix + '\\_%'}`
}

/** The statements one request runs (session lookup included). */
async function statementsOf(path: string, token: string) {
  seen.length = 0
  recording = true
  const res = await api.get(path, { token })
  recording = false
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`)
  return { res, statements: [...seen] }
}

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  Plans?: PlanNode[]
}
const nodesOf = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodesOf)]

async function plansOf(statements: { query: string; params: unknown[] }[]) {
  const out: PlanNode[][] = []
  for (const s of statements) {
    const [row] = await explainSql!.unsafe(`explain (format json) ${s.query}`, s.params as any[])
    const plan = (row as any)['QUERY PLAN'][0].Plan as PlanNode
    out.push(nodesOf(plan))
  }
  return out
}

const seqScansOfMembers = (plans: PlanNode[][]) =>
  plans.flat().filter((n) => n['Node Type'] === 'Seq Scan' && ['course_members', 'users', 'course_teachers'].includes(n['Relation Name'] ?? ''))

describe(`roster reads at ${SEMINAR} and ${BIG} students`, () => {
  test('GET /courses: the same statements for the seminar student and the MOOC owner; memberCount from the counter', async () => {
    const student = await statementsOf('/courses', seminarStudent.token)
    const teacher = await statementsOf('/courses', owner.token)
    expect(student.res.data.map((c: any) => c.memberCount)).toEqual([SEMINAR + 1])
    expect(teacher.res.data.map((c: any) => [c.title, c.memberCount])).toEqual([
      ['Seminar', SEMINAR + 1],
      ['MOOC', BIG + 1],
    ])
    expect(student.statements.length).toBe(teacher.statements.length)
    expect(student.statements.length).toBeGreaterThan(0)
    expect(student.statements.length).toBeLessThanOrEqual(2)
    if (explainSql) expect(seqScansOfMembers(await plansOf(teacher.statements))).toEqual([])
  })

  test('GET …/members: first page, a deep page by cursor and by number: same statements at both sizes, index-only', async () => {
    const counts: number[] = []
    for (const [course, n] of [
      [seminar, SEMINAR],
      [big, BIG],
    ] as const) {
      const first = await statementsOf(`/courses/${course.id}/members?pageSize=5`, owner.token)
      expect(first.res.data.total).toBe(n + 1)
      expect(first.res.data.items).toHaveLength(5)
      let cursor = first.res.data.nextCursor as string
      // Walk a few pages by cursor; the last one read is as cheap as the first.
      for (let i = 0; i < 3; i++) cursor = (await api.get(`/courses/${course.id}/members?pageSize=5&after=${cursor}`, { token: owner.token })).data.nextCursor
      const deep = await statementsOf(`/courses/${course.id}/members?pageSize=5&after=${cursor}`, owner.token)
      expect(deep.res.data.items).toHaveLength(5)
      const lastPage = Math.ceil((n + 1) / 20)
      const byNumber = await statementsOf(`/courses/${course.id}/members?pageSize=20&page=${lastPage}`, owner.token)
      expect(byNumber.res.data.items.length).toBeGreaterThan(0)
      counts.push(first.statements.length, deep.statements.length, byNumber.statements.length)
      if (explainSql && n === BIG) {
        for (const r of [first, deep, byNumber]) {
          const plans = await plansOf(r.statements)
          expect(seqScansOfMembers(plans)).toEqual([])
          const studentsPlan = plans.flat().filter((p) => p['Relation Name'] === 'course_members')
          expect(studentsPlan.map((p) => [p['Node Type'], p['Index Name']])).toContainEqual(['Index Only Scan', 'course_members_join_order_idx'])
        }
      }
    }
    // Seminar (first, deep, by number) == MOOC (first, deep, by number).
    expect(counts.slice(0, 3)).toEqual(counts.slice(3))
  })

  test('GET …/members, first page: the teachers and the student count come in one statement (4 in all with the session and the course guard)', async () => {
    for (const course of [seminar, big]) {
      const r = await statementsOf(`/courses/${course.id}/members?pageSize=5`, owner.token)
      expect(r.res.data.total).toBe((course === big ? BIG : SEMINAR) + 1)
      // Session lookup, course guard, teachers (+ the counter rows), the students' window.
      expect(r.statements.length).toBe(4)
      // (The embedded client records a statement's own text, not the fragments written into it.)
      if (usingExternalDb()) expect(r.statements.filter((s) => /from course_student_counts /i.test(s.query))).toHaveLength(1)
      // Written out, not through course_student_count(): a SQL function PostgreSQL does not
      // inline is planned again at every execution of a prepared statement (src/db/student-count.ts).
      expect(r.statements.filter((s) => /course_student_count\(/i.test(s.query))).toHaveLength(0)
    }
  })

  test('the homework list of the seminar teacher reads studentCount from the counter (no count over members)', async () => {
    const r = await statementsOf(`/courses/${seminar.id}/homeworks`, owner.token)
    expect(r.statements.some((s) => /count\(\*\)[^]*from course_members/i.test(s.query))).toBe(false)
  })
})
