/**
 * Statement counting and plans. A second postgres.js pool with the `debug` hook sees every
 * statement the driver sends (text and parameters, BEGIN/COMMIT included); requests are run
 * one at a time through it, so each request's statements are exactly what was captured.
 * The timed runs use an ordinary pool: the hook costs a stack capture per query.
 */
import postgres from 'postgres'
import type { Sql } from '../src/db/connect.ts'

export interface Statement {
  text: string
  params: unknown[]
}

export function countingPool(url: string) {
  let capture: Statement[] | null = null
  const sql = postgres(url, {
    onnotice: () => {},
    connection: { application_name: 'cls-bench-counting' },
    // One connection, opened before counting starts, so the driver's own start-up query
    // (array types) never lands in a request's count.
    max: 1,
    idle_timeout: 0,
    debug: (_conn: number, text: string, params: unknown[]) => {
      capture?.push({ text, params: [...params] })
    },
  }) as unknown as Sql
  return {
    sql,
    async warm() {
      await sql`select 1`
    },
    /** Runs `f` and returns the statements it sent. Not re-entrant: one at a time. */
    async record<T>(f: () => Promise<T>): Promise<{ result: T; statements: Statement[] }> {
      capture = []
      try {
        const result = await f()
        return { result, statements: capture }
      } finally {
        capture = null
      }
    },
  }
}

const TX_CONTROL = /^\s*(begin|commit|rollback|savepoint|release|prepare transaction)\b/i

export const isTxControl = (s: Statement) => TX_CONTROL.test(s.text)

/** A statement on one line, shortened: for tables. */
export function oneLine(text: string, max = 110) {
  const s = text.replace(/\s+/g, ' ').trim()
  return s.length > max ? s.slice(0, max - 1) + '…' : s
}

export interface Plan {
  statement: string
  text: string
  executionMs: number | null
  seqScans: { table: string; rows: number }[]
  error: string | null
}

const ROLLBACK = new Error('bench: roll back')

/** Tables above this many rows are "large": a sequential scan over one is flagged. */
export const LARGE_TABLE_ROWS = 10_000

/**
 * EXPLAIN (ANALYZE, BUFFERS) of each statement of a request, replayed in order inside one
 * transaction that is rolled back (each statement under a savepoint, so one failure does
 * not hide the rest). Writes therefore leave nothing behind.
 */
export async function explainAll(sql: Sql, statements: Statement[], mapParams: (p: unknown[]) => unknown[] = (p) => p): Promise<Plan[]> {
  const sizes = new Map<string, number>()
  for (const r of await sql<{ relname: string; n: number }[]>`
      select c.relname, greatest(c.reltuples, 0)::bigint::int as n
        from pg_class c join pg_namespace ns on ns.oid = c.relnamespace
       where ns.nspname = 'public' and c.relkind = 'r'`) {
    sizes.set(r.relname, r.n)
  }
  const plans: Plan[] = []
  try {
    await sql.begin(async (tx) => {
      for (const st of statements) {
        if (isTxControl(st)) continue
        try {
          const rows = await tx.savepoint((sp) => sp.unsafe(`explain (analyze, buffers) ${st.text}`, mapParams(st.params) as any[]))
          const text = (rows as unknown as Record<string, string>[]).map((r) => r['QUERY PLAN']).join('\n')
          const m = /Execution Time: ([\d.]+) ms/.exec(text)
          const seqScans = [...text.matchAll(/Seq Scan on (\w+)/g)].map((x) => ({ table: x[1]!, rows: sizes.get(x[1]!) ?? 0 }))
          plans.push({ statement: st.text, text, executionMs: m ? Number(m[1]) : null, seqScans, error: null })
        } catch (e) {
          plans.push({ statement: st.text, text: '', executionMs: null, seqScans: [], error: (e as Error).message })
        }
      }
      throw ROLLBACK
    })
  } catch (e) {
    if (e !== ROLLBACK) throw e
  }
  return plans
}

export const largeSeqScans = (p: Plan) => p.seqScans.filter((s) => s.rows >= LARGE_TABLE_ROWS)
