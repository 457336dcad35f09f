import { beforeAll, describe, expect, test } from 'bun:test'
import { lateSql, openSql, RULES } from '../../src/db/due-sql.ts'
import type { Sql } from '../../src/db/connect.ts'
import { testApp } from '../support/harness.ts'

/*
 * The SQL conditions of the due-time rule (src/db/due-sql.ts) against the functions they stand
 * for (src/lib/due.ts), evaluated by the database at every edge: before, at and 1 ms after the
 * start and the deadline, and without either. Issue 50: reminders/queries.ts wrote `now < due_at`
 * for "still open" while dueStatus called now == dueAt OPEN.
 */
let sql: Sql
beforeAll(async () => {
  sql = (await testApp()).deps.sql
})

const DUE = Date.parse('2026-11-22T10:00:00.000Z')
const START = DUE - 3_600_000
const instants = [START - 1, START, START + 1, DUE - 1, DUE, DUE + 1].map((t) => new Date(t))
const ts = (d: Date | null) => sql`${d}::timestamptz`
/** What the database makes of one condition. */
const value = async (condition: ReturnType<typeof lateSql>) => ((await sql`select ${condition} as v`)[0] as { v: boolean }).v

describe('the due-time rule in SQL agrees with src/lib/due.ts', () => {
  test('late: at, dueAt (and no deadline)', async () => {
    for (const dueAt of [new Date(DUE), null]) {
      for (const at of instants) {
        const v = await value(lateSql(sql, ts(at), ts(dueAt)))
        expect([at.toISOString(), dueAt?.toISOString(), v]).toEqual([at.toISOString(), dueAt?.toISOString(), RULES.late.ts(at, dueAt)])
      }
    }
  })

  test('open: now, startAt (and no start), dueAt; at exactly dueAt it is open', async () => {
    for (const startAt of [new Date(START), null]) {
      for (const now of instants) {
        const v = await value(openSql(sql, ts(now), ts(startAt), ts(new Date(DUE))))
        expect([now.toISOString(), startAt?.toISOString(), v]).toEqual([now.toISOString(), startAt?.toISOString(), RULES.open.ts(now, startAt, new Date(DUE))])
      }
    }
    expect(await value(openSql(sql, ts(new Date(DUE)), ts(new Date(START)), ts(new Date(DUE))))).toBe(true)
  })
})
