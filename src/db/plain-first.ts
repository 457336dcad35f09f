import postgres from 'postgres'
import type { TxSql } from './connect.ts'

/** How an insert treats a row that meets another on a unique key: fails (23505) or is skipped (ON CONFLICT DO NOTHING). */
export type OnConflict = 'none' | 'conflict'

/**
 * Runs `insert` plainly in a savepoint and, only if it met a unique key (23505), again with
 * ON CONFLICT. For inserts that rarely meet an existing row: ON CONFLICT pays a speculative
 * insertion per row (+30-40 % backend CPU for reminder events, bench/cpu-variants.ts; 7 % of a
 * dispatch batch, bench/probe-dispatch.ts), and a plain insert that does meet one fails at once.
 */
export async function plainFirst<T>(tx: TxSql, insert: (q: TxSql, onConflict: OnConflict) => Promise<T>): Promise<T> {
  try {
    // postgres.js types a savepoint's result as UnwrapPromiseArray<T>; the callers' T is a plain value.
    return (await tx.savepoint((sp) => insert(sp, 'none'))) as T
  } catch (e) {
    if (!(e instanceof postgres.PostgresError && e.code === '23505')) throw e
    return insert(tx, 'conflict')
  }
}
