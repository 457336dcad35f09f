import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { testDatabase } from '../support/harness.ts'

/**
 * docs/database.md is where the rules that live in the database are found from the tree: its
 * trigger list (between the trigger-map markers) must name exactly the triggers a migrated
 * database has, each on its table and with its function. A migration that adds, drops or
 * renames a trigger without the doc fails here, and so does a doc row left behind.
 */
const DOC = join(import.meta.dir, '../../docs/database.md')

interface Trigger {
  table: string
  trigger: string
  fn: string
}

const key = (t: Trigger) => `${t.table}.${t.trigger} → ${t.fn}`
const cell = (s: string) => s.trim().replace(/^`|`$/g, '')

/** The rows of the table between `<!-- trigger-map:start -->` and `<!-- trigger-map:end -->`. */
function documentedTriggers(markdown: string): Trigger[] {
  const start = markdown.indexOf('<!-- trigger-map:start -->')
  const end = markdown.indexOf('<!-- trigger-map:end -->')
  if (start < 0 || end < start) throw new Error('docs/database.md has no trigger-map markers')
  const rows = markdown
    .slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2) // the header and its rule
  return rows.map((line) => {
    const [table = '', trigger = '', fn = ''] = line.split('|').slice(1).map(cell)
    return { table, trigger, fn }
  })
}

describe('the trigger map of docs/database.md', () => {
  test('lists exactly the triggers of a migrated database, each with its table and function', async () => {
    const { sql } = await testDatabase()
    const actual = await sql<Trigger[]>`
      select c.relname as table, t.tgname as trigger, p.proname as fn
        from pg_trigger t
        join pg_class c on c.oid = t.tgrelid
        join pg_namespace n on n.oid = c.relnamespace
        join pg_proc p on p.oid = t.tgfoid
       where not t.tgisinternal and n.nspname = 'public'`
    const documented = documentedTriggers(await Bun.file(DOC).text())

    const inDb = new Set(actual.map(key))
    const inDoc = documented.map(key)
    expect(inDoc.length).toBeGreaterThan(0)
    // Each trigger once: a repeated row would hide a missing one.
    expect(inDoc.filter((k, i) => inDoc.indexOf(k) !== i)).toEqual([])
    expect({
      missingFromDoc: [...inDb].filter((k) => !inDoc.includes(k)).sort(),
      missingFromDatabase: inDoc.filter((k) => !inDb.has(k)).sort(),
    }).toEqual({ missingFromDoc: [], missingFromDatabase: [] })
  })

  test('reads the marked table and nothing around it', () => {
    const doc = [
      '| a | b | c |',
      '<!-- trigger-map:start -->',
      '| Table | Trigger | Function | Migration | Group |',
      '|---|---|---|---|---|',
      '| `users` | `users_delete_lock` | `users_delete_lock` | 040 | reference checks |',
      '<!-- trigger-map:end -->',
      '| x | y | z |',
    ].join('\n')
    expect(documentedTriggers(doc)).toEqual([{ table: 'users', trigger: 'users_delete_lock', fn: 'users_delete_lock' }])
    expect(() => documentedTriggers('no markers')).toThrow('trigger-map')
  })
})
