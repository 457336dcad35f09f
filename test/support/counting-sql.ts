import type { Sql } from '../../src/db/connect.ts'

/**
 * Wraps a `sql` handle so that every statement it runs is reported to `onRun` (the template's
 * text, parts joined by `$`), for tests that assert "a fixed number of queries" on either
 * database (the embedded client has no `debug` hook). A statement counts when the query a
 * tagged-template call made is run (awaited), not when it is made: a fragment that only goes into
 * another statement (a column list, a join, or a `select` built apart and interpolated, as
 * GET /courses' list of a user's courses) is never run by itself, so no guess from its first word
 * is needed to leave it out.
 */
export function countingSql(inner: Sql, onRun: (query: string) => void): Sql {
  return new Proxy(inner, {
    apply(target, thisArg, args) {
      const query = Reflect.apply(target as any, thisArg, args) as { then: (...a: unknown[]) => unknown }
      const first = args[0]
      // A tagged-template call (not sql(identifiers) or sql(rows), which make helpers, not queries).
      if (Array.isArray(first) && 'raw' in first) {
        const then = query.then
        query.then = (...a: unknown[]) => {
          onRun(first.join('$'))
          return then.apply(query, a)
        }
      }
      return query
    },
  }) as Sql
}
