import type { Sql } from '../../db/connect.ts'
import { MODULE_KEYS, type PutModulesBody, type WorkspaceModule } from './model.ts'
import * as q from './queries.ts'

const defaultIndex = (key: string) => MODULE_KEYS.indexOf(key as (typeof MODULE_KEYS)[number])

/**
 * Every key, saved values over defaults (enabled, sortOrder 1..8 in key order), ordered by
 * sortOrder with ties broken by the default order. This is the one row → API mapping.
 */
export function resolveModules(rows: q.ModuleRow[]): WorkspaceModule[] {
  const saved = new Map(rows.map((r) => [r.module_key, r]))
  return MODULE_KEYS.map((moduleKey, i) => {
    const r = saved.get(moduleKey)
    return { moduleKey, enabled: r ? r.enabled : true, sortOrder: r ? r.sort_order : i + 1 }
  }).sort((a, b) => a.sortOrder - b.sortOrder || defaultIndex(a.moduleKey) - defaultIndex(b.moduleKey))
}

export async function getModules(sql: Sql, courseId: string) {
  return { modules: resolveModules(await q.savedModules(sql, courseId)) }
}

/** Saves the listed modules; unlisted ones keep their saved values or defaults. */
export async function putModules(sql: Sql, courseId: string, body: PutModulesBody) {
  await q.upsertModules(sql, courseId, body.modules)
  return getModules(sql, courseId)
}
