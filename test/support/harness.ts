import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../../src/app.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import { connectEmbedded, connectExternal, type Database } from '../../src/db/connect.ts'
import { migrate } from '../../src/db/migrate.ts'
import type { Deps } from '../../src/deps.ts'
import { ManualClock, systemClock, type Clock } from '../../src/lib/clock.ts'
import { createLogger } from '../../src/lib/log.ts'
import { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import { withServices } from '../../src/services/index.ts'
import { client, type Client } from './client.ts'

/**
 * One database per test process, migrated once: the embedded PGlite in memory by default,
 * or the PostgreSQL server named by DATABASE_URL (CI runs the suite both ways).
 * Tests isolate themselves by creating their own users and courses with unique names.
 */
let dbPromise: Promise<Database> | undefined
export function testDatabase(): Promise<Database> {
  dbPromise ??= (async () => {
    const url = process.env.DATABASE_URL
    const db = url ? await connectExternal(url, 10) : await connectEmbedded(undefined)
    await migrate(db.sql)
    return db
  })()
  return dbPromise
}

export const usingExternalDb = () => Boolean(process.env.DATABASE_URL)

export function testConfig(overrides: Partial<Config> = {}): Deps['config'] {
  const base = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: '/tmp/cls-test-data' })
  return {
    ...base,
    // Many tests fail logins on purpose from the same (absent) address.
    loginMaxFailuresPerIp: 100_000,
    jwtSecret: 'test-secret-test-secret-test-secret-0123456789',
    ...overrides,
  } as Deps['config']
}

export interface TestContext {
  app: ReturnType<typeof buildApp>
  deps: Deps
  api: Client
}

export async function testApp(opts: { clock?: Clock; config?: Partial<Config>; deps?: Partial<Deps> } = {}): Promise<TestContext> {
  const db = await testDatabase()
  const config = testConfig(opts.config)
  const deps: Deps = withServices({
    sql: db.sql,
    db: db.capability,
    config,
    emailEnabled: Boolean(config.smtpUrl),
    clock: opts.clock ?? systemClock,
    log: createLogger((process.env.TEST_LOG_LEVEL as 'silent') ?? 'silent'),
    // Each app gets its own empty file storage, so tests can assert on what is (not) on disk.
    storage: new LocalDiskStorage(join(tmpdir(), uniq('cls-files-'))),
    ...opts.deps,
  })
  const app = buildApp(deps)
  return { app, deps, api: client(app) }
}

export { ManualClock }

export { client, httpClient, type CallOptions, type Client, type Res } from './client.ts'
let counter = 0
/** A name no other test (or earlier run against the same database) uses. */
export const uniq = (prefix = 'u') => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`

export interface Account {
  id: string
  username: string
  email: string
  role: 'STUDENT' | 'TEACHER'
  token: string
  password: string
}

/** Registers and logs in a fresh account. */
export async function signUp(api: Client, role: 'STUDENT' | 'TEACHER' = 'STUDENT', displayName?: string): Promise<Account> {
  const username = uniq(role === 'TEACHER' ? 't' : 's')
  const password = 'correct horse battery'
  const email = `${username}@example.test`
  const reg = await api.post('/auth/register', { json: { username, email, password, role, displayName } })
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`)
  const login = await api.post('/auth/login', { json: { identifier: username, password } })
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`)
  return { id: reg.data.id, username, email, role, token: login.data.accessToken, password }
}

/** A fresh teacher with a course of their own. */
export async function teacherWithCourse(api: Client, title = 'Course') {
  const teacher = await signUp(api, 'TEACHER')
  const course = await api.post('/courses', { token: teacher.token, json: { title, description: 'x' } })
  if (course.status !== 201) throw new Error(`course: ${course.status} ${JSON.stringify(course.body)}`)
  return { teacher, courseId: course.data.id as string, inviteCode: course.data.inviteCode as string }
}
