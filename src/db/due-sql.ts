import type postgres from 'postgres'
import { dueStatus, isLate } from '../lib/due.ts'
import type { Sql, TxSql } from './connect.ts'

type Db = Sql | TxSql
type Fragment = postgres.Fragment

/*
 * The due-time rule of src/lib/due.ts (isLate, dueStatus) as SQL conditions, so a statement never
 * writes its own comparison with a deadline: at exactly due_at work is on time and the homework is
 * still open; from due_at + 1 ms it is late. test/database/due-sql.test.ts evaluates these in the
 * database at the edges (before, at and after each instant, no deadline) and compares each with
 * the function it stands for; `RULES` names them for that test.
 */

/** `isLate(at, dueAt)`: after the deadline; no deadline (null) is never late. */
export const lateSql = (sql: Db, at: Fragment, dueAt: Fragment) => sql`coalesce(${at} > ${dueAt}, false)`

/** `dueStatus(now, startAt, dueAt) === 'OPEN'`: started (or no start) and not late. */
export const openSql = (sql: Db, now: Fragment, startAt: Fragment, dueAt: Fragment) =>
  sql`(coalesce(${startAt} <= ${now}, true) and not ${lateSql(sql, now, dueAt)})`

/** The TypeScript twin of each condition, for the test that checks one against the other. */
export const RULES = {
  late: { sql: lateSql, ts: (at: Date, dueAt: Date | null) => isLate(at, dueAt) },
  open: { sql: openSql, ts: (now: Date, startAt: Date | null, dueAt: Date) => dueStatus(now, startAt, dueAt) === 'OPEN' },
} as const
