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

/**
 * The rows a save writes. Listed modules keep the sortOrder sent. An unlisted module keeps its
 * saved value or default unless that would tie with another module: then it moves to the next
 * free position after it (and those behind it shift on as needed). So saving a subset never
 * leaves two modules on one position; only a client that sends equal values itself gets ties
 * (broken by the default order).
 */
export function mergeModules(rows: q.ModuleRow[], listed: PutModulesBody['modules']): WorkspaceModule[] {
  const sent = new Map(listed.map((m) => [m.moduleKey, m]))
  const taken = new Set(listed.map((m) => m.sortOrder))
  const current = resolveModules(rows)
  const order = current
    .map((m) => sent.get(m.moduleKey) ?? m)
    .sort(
      (a, b) =>
        a.sortOrder - b.sortOrder ||
        Number(sent.has(b.moduleKey)) - Number(sent.has(a.moduleKey)) ||
        defaultIndex(a.moduleKey) - defaultIndex(b.moduleKey),
    )
  const out: WorkspaceModule[] = []
  let last = -1
  for (const m of order) {
    if (sent.has(m.moduleKey)) {
      out.push(m)
      last = Math.max(last, m.sortOrder)
      continue
    }
    let at = Math.max(m.sortOrder, last + 1)
    while (taken.has(at)) at++
    taken.add(at)
    out.push({ ...m, sortOrder: at })
    last = at
  }
  // Written: the listed modules, and the unlisted ones that had to move.
  const before = new Map(current.map((m) => [m.moduleKey, m.sortOrder]))
  return out.filter((m) => sent.has(m.moduleKey) || before.get(m.moduleKey) !== m.sortOrder)
}

/** Saves the listed modules (see mergeModules), under the course row's lock. */
export async function putModules(sql: Sql, courseId: string, body: PutModulesBody) {
  await sql.begin(async (tx) => {
    await q.lockCourse(tx, courseId)
    await q.upsertModules(tx, courseId, mergeModules(await q.savedModules(tx, courseId), body.modules))
  })
  return getModules(sql, courseId)
}
