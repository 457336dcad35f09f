import type { Sql, TxSql } from '../../db/connect.ts'
import type { ModuleKey } from './model.ts'

type Db = Sql | TxSql

export interface ModuleRow {
  module_key: ModuleKey
  enabled: boolean
  sort_order: number
}

/** Saved modules only; the others take their defaults in the service. */
export async function savedModules(sql: Db, courseId: string) {
  return sql<ModuleRow[]>`
    select module_key, enabled, sort_order from workspace_modules where course_id = ${courseId}`
}

/** Saves the listed modules in one statement; (course_id, module_key) is the primary key. */
export async function upsertModules(sql: Db, courseId: string, modules: { moduleKey: ModuleKey; enabled: boolean; sortOrder: number }[]) {
  const rows = modules.map((m) => ({ course_id: courseId, module_key: m.moduleKey, enabled: m.enabled, sort_order: m.sortOrder }))
  await sql`
    insert into workspace_modules ${sql(rows, 'course_id', 'module_key', 'enabled', 'sort_order')}
    on conflict (course_id, module_key) do update
      set enabled = excluded.enabled, sort_order = excluded.sort_order`
}

/** Serialises saves of one course's configuration (read, merge, write). */
export async function lockCourse(tx: TxSql, courseId: string) {
  await tx`select id from courses where id = ${courseId} for no key update`
}
