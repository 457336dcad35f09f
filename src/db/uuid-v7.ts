import type { Fragment, Sql, TxSql } from './connect.ts'

/**
 * gen_uuid_v7() (sql/004) written out, for rows that each need an id of their own instant: the
 * same bits, without a SQL function call per row, which cost 2.3 times the expression itself
 * (backend CPU, 300,000 rows: 1.9 s against 0.8 s; sql/040). `at`: the instant it is of (an
 * expression; now by default, e.g. the delivery time of rows a benchmark writes). For the many
 * rows of one statement, `uuidV7Rows` costs a tenth.
 */
export const uuidV7 = (sql: Sql | TxSql, at: Fragment = sql`clock_timestamp()`) =>
  sql`encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
        placing substring(int8send((extract(epoch from ${at}) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`

/**
 * Ids for the rows of one INSERT … SELECT (a fan-out: a homework's reminder events, a course's
 * notifications), as RFC 9562 §6.2 allows (method 1, a dedicated counter): the statement draws
 * one v7 id (gen_uuid_v7() once: an uncorrelated subquery, an InitPlan) and keeps its first 25
 * hex digits (the millisecond, the version, 46 random bits); each row adds its number in the
 * statement as the last 7 (up to 268,435,455 rows). Unique within the statement by the counter,
 * across statements by the millisecond and the 46 random bits, and ascending in `order` (the
 * statement's ORDER BY: the ids then follow the insert order, as the dispatch's claim order
 * (scheduled_at, id) relies on; any order without one).
 *
 * uuidV7 draws gen_random_uuid() for every row, and that was most of its cost (OpenSSL 3's
 * RAND_bytes): 3.5 µs a row against 0.3 µs for this (psql, 200,000 rows, PostgreSQL 15). Issue
 * 26's mooc bench, interleaved with the per-row ids: a dispatch batch of 2,000 reminders 77-83 ->
 * 68-69 ms of backend CPU; a homework's 300,003 events written in 1.96-2.40 s instead of
 * 3.37-3.70 s; dispatching 100,001 reminders 28,852-42,875 events/s against 25,315-32,085.
 */
export const uuidV7Rows = (sql: Sql | TxSql, order?: Fragment) =>
  sql`((select left(replace(gen_uuid_v7()::text, '-', ''), 25)) || lpad(to_hex(row_number() over (${order ? sql`order by ${order}` : sql``})), 7, '0'))::uuid`
