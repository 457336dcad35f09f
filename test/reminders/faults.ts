import type { Sql, TxSql } from '../../src/db/connect.ts'

/**
 * Wraps a postgres.js handle so that, inside transactions, the `nth` statement whose text
 * matches `pattern` throws (as a lost connection or a constraint error would) after the
 * statements before it in the same transaction have run.
 */
export function failingOn(sql: Sql, pattern: RegExp, nth = 1): Sql & { failures: number } {
  let seen = 0
  const state = { failures: 0 }
  const wrapTx = (tx: TxSql): TxSql =>
    new Proxy(tx, {
      // Statements inside a savepoint count too (the dispatch inserts plainly in one first).
      get(target, prop, receiver) {
        if (prop === 'savepoint') return (fn: (sp: TxSql) => unknown) => target.savepoint((sp) => fn(wrapTx(sp)) as any)
        return Reflect.get(target, prop, receiver)
      },
      apply(target, thisArg, args) {
        const strings = args[0]
        if (Array.isArray(strings) && 'raw' in strings && pattern.test(strings.join('?'))) {
          seen++
          if (seen === nth) {
            state.failures++
            throw new Error(`injected failure in: ${strings.join('?').trim().split('\n')[0]}`)
          }
        }
        return Reflect.apply(target as any, thisArg, args)
      },
    })
  return new Proxy(sql, {
    get(target, prop, receiver) {
      if (prop === 'failures') return state.failures
      if (prop === 'begin') return (fn: (tx: TxSql) => unknown) => target.begin((tx) => fn(wrapTx(tx)) as any)
      return Reflect.get(target, prop, receiver)
    },
  }) as Sql & { failures: number }
}
