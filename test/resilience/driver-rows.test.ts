import { afterAll, expect, test } from 'bun:test'
import postgres from 'postgres'
import type { Sql } from '../../src/db/connect.ts'
import { testDatabase, usingExternalDb } from '../support/harness.ts'

/*
 * postgres.js keeps a per-connection row counter that only CommandComplete reset. A query that
 * dies in the middle of its rows (an error on a row, a statement timeout, or its backend being
 * terminated: issue 11's fault test) left it standing, and the next query on that connection
 * came back as a sparse array: holes first, then its rows. `const [row] = …` read undefined:
 * the session lookup found "no session" and a valid login got 401 during a database blip.
 * Upstream: porsager/postgres #1119, #1181 (PRs #1120, #1190, unreleased); fixed in
 * patches/postgres@3.4.9.patch.
 */
const cleanup: (() => Promise<unknown>)[] = []
afterAll(async () => {
  for (const c of cleanup) await c()
})

/** One connection, so the two queries share it. */
async function oneConnection(): Promise<Sql> {
  if (!usingExternalDb()) return (await testDatabase()).sql // the embedded database has one connection
  const sql = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} }) as unknown as Sql
  cleanup.push(() => sql.end({ timeout: 1 }))
  return sql
}

test('a query that fails after some of its rows does not leave holes in the next result on the connection', async () => {
  const sql = await oneConnection()
  for (const pipelined of [true, false]) {
    // Three rows arrive, then division by zero on the fourth.
    const failing = sql`select i, 1 / (4 - i) as boom from generate_series(1, 10) i`.then(
      () => 'resolved',
      (e: any) => e.code,
    )
    const next = pipelined ? sql`select x from generate_series(1, 3) x` : undefined
    expect(await failing).toBe('22012')
    const rows = [...(await (next ?? sql`select x from generate_series(1, 3) x`))]
    expect(rows).toEqual([{ x: 1 }, { x: 2 }, { x: 3 }])
  }
})
