import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { DROPPED_FOREIGN_KEYS } from '../../src/db/dropped-foreign-keys.ts'
import { testDatabase } from '../support/harness.ts'

/*
 * The registry of the foreign keys replaced by statement triggers (src/db/dropped-foreign-keys.ts)
 * against a migrated database (no such constraint is back, every trigger doing its work exists)
 * and against docs/database.md's "Foreign keys given up" table (the same keys, migrations and
 * triggers). What the triggers do (23503, cascades) is tested with the features
 * (test/reminders/references.test.ts, test/email/references.test.ts).
 */
const DOC = join(import.meta.dir, '../../docs/database.md')

/** The rows of the table under "## Foreign keys given up": key, migration, triggers. */
async function documented() {
  const md = await Bun.file(DOC).text()
  const at = md.indexOf('## Foreign keys given up')
  expect(at).toBeGreaterThan(0)
  const section = md.slice(at, md.indexOf('\n## ', at + 1) >= 0 ? md.indexOf('\n## ', at + 1) : undefined)
  return section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => {
      const [fk = '', dropped = '', by = ''] = l.split('|').slice(1).map((c) => c.trim())
      const m = /^`(\w+)\.(\w+) → (\w+)` \(([a-z ]+)\)$/.exec(fk)
      // The triggers are the backticked names before any parenthesis ("(the set-null trigger was dropped …)").
      const names = [...by.replace(/\(.*?\)/g, '').matchAll(/`(\w+)`/g)].map((x) => x[1]!)
      return { key: m ? `${m[1]}.${m[2]} → ${m[3]} (${m[4]})` : fk, dropped, triggers: names.sort() }
    })
}

describe('the dropped foreign keys', () => {
  test('none is back as a constraint; every trigger that replaces one exists', async () => {
    const { sql } = await testDatabase()
    const fks = await sql<{ table: string; column: string; references: string }[]>`
      select c.conrelid::regclass::text as table, a.attname as column, c.confrelid::regclass::text as references
        from pg_constraint c
        join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any (c.conkey)
       where c.contype = 'f'`
    const triggers = new Set((await sql<{ tgname: string }[]>`select tgname from pg_trigger where not tgisinternal`).map((t) => t.tgname))
    for (const d of DROPPED_FOREIGN_KEYS) {
      expect(fks.filter((f) => f.table === d.table && f.column === d.column && f.references === d.references)).toEqual([])
      expect(d.triggers.filter((t) => !triggers.has(t))).toEqual([])
    }
  })

  test('docs/database.md lists the same keys, migrations and triggers', async () => {
    const doc = await documented()
    expect(doc.length).toBeGreaterThan(0)
    expect(doc).toEqual(
      DROPPED_FOREIGN_KEYS.map((d) => ({ key: `${d.table}.${d.column} → ${d.references} (${d.onDelete})`, dropped: d.dropped, triggers: [...d.triggers].sort() })),
    )
  })
})
