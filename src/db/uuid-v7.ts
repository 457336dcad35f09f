import type { Sql, TxSql } from './connect.ts'

/**
 * gen_uuid_v7() (sql/004) written out, for INSERT … SELECT of many rows: the same bits, without a
 * SQL function call per row, which cost 2.3 times the expression itself (backend CPU, 300,000
 * rows: 1.9 s against 0.8 s; sql/040). `at`: the instant it is of (an expression; now by default,
 * e.g. the delivery time of rows a benchmark writes).
 */
export const uuidV7 = (sql: Sql | TxSql, at: ReturnType<TxSql> = sql`clock_timestamp()`) =>
  sql`encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
        placing substring(int8send((extract(epoch from ${at}) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`
