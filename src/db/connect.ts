import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import postgres from 'postgres'

export type Sql = postgres.Sql
export type TxSql = postgres.TransactionSql

export interface Database {
  sql: Sql
  kind: 'embedded' | 'external'
  close(): Promise<void>
}

/** Clients of the embedded database (one connection, no LISTEN): the live stream signals in-process. */
export const embeddedClients = new WeakSet<Sql>()

const common = {
  onnotice: () => {},
  // Timestamps come back as Date, numerics we cast in SQL; nothing else needs transforming.
  connection: { application_name: 'course-learning-service' },
} as const

export async function connectExternal(url: string, max: number): Promise<Database> {
  const sql = postgres(url, { ...common, max, idle_timeout: 30, connect_timeout: 10 })
  return { sql, kind: 'external', close: () => sql.end({ timeout: 5 }) }
}

/**
 * Starts PGlite (PostgreSQL compiled to WASM) and talks to it through the PostgreSQL wire
 * protocol on a private unix socket, so the application uses the same postgres.js client
 * and the same SQL as with a real server. PGlite serves one connection: `max: 1`.
 *
 * `dataDir` undefined keeps the database in memory (tests).
 */
export async function connectEmbedded(dataDir: string | undefined): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite')
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket')
  let dir: string | undefined
  if (dataDir) {
    dir = resolve(dataDir, 'pgdata')
    await mkdir(dir, { recursive: true })
  }
  const db = await PGlite.create(dir)
  // A short path: unix socket paths are limited to ~100 bytes, DATA_DIR may be long.
  const sockDir = await mkdtemp(join(tmpdir(), 'cls-pg-'))
  const path = join(sockDir, '.s.PGSQL.5432')
  const server = new PGLiteSocketServer({ db, path })
  await server.start()
  const sql = postgres({
    ...common,
    path,
    max: 1,
    database: 'postgres',
    username: 'postgres',
    // PGlite has no prepared-statement cache across reconnects worth relying on.
    prepare: true,
  })
  embeddedClients.add(sql)
  return {
    sql,
    kind: 'embedded',
    async close() {
      await sql.end({ timeout: 5 })
      await server.stop()
      await db.close()
      await rm(sockDir, { recursive: true, force: true })
    },
  }
}

export function connectDatabase(opts: { databaseUrl?: string; dataDir?: string; poolMax: number }): Promise<Database> {
  return opts.databaseUrl ? connectExternal(opts.databaseUrl, opts.poolMax) : connectEmbedded(opts.dataDir)
}
