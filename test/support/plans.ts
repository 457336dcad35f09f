import postgres from 'postgres'
import type { TxSql } from '../../src/db/connect.ts'

/**
 * The plans PostgreSQL chose for what `work` runs, triggers' statements included, as auto_explain
 * prints them (one text per statement), in a transaction of its own connection that is rolled
 * back. PostgreSQL only (DATABASE_URL): the embedded database is built without auto_explain.
 */
export async function plansOf(work: (tx: TxSql) => Promise<unknown>): Promise<string[]> {
  const plans: string[] = []
  const conn = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: (n) => plans.push(String(n.message)) })
  try {
    await conn.begin(async (tx) => {
      await tx`load 'auto_explain'`
      await tx`select set_config('auto_explain.log_min_duration', '0', true), set_config('auto_explain.log_nested_statements', 'on', true),
                      set_config('auto_explain.log_level', 'notice', true)`
      await work(tx as unknown as TxSql)
      throw Object.assign(new Error('rollback'), { rollback: true })
    }).catch((e) => {
      if (!e.rollback) throw e
    })
  } finally {
    await conn.end()
  }
  return plans
}
