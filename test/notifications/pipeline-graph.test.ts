import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

/*
 * Issue 28: the path of a notification crossed back on itself (reminders → notifications →
 * email → notifications). Now notifications/ knows no channel (e-mail is one entry of the
 * channel list, src/services/channels.ts, which the composition root puts on Deps.channels), and the walk from the jobs through dispatch meets each module
 * once: the module-level import graph of what dispatch reaches has no cycle.
 */
const SRC = resolve(import.meta.dir, '../../src')

function tsFiles(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) {
      if (name !== 'web') out.push(...tsFiles(p))
    } else if (name.endsWith('.ts')) out.push(p)
  }
  return out
}

/** file → the files it imports (type-only imports too: they are edges a reader follows). */
const graph = new Map<string, string[]>()
for (const f of tsFiles(SRC)) {
  const text = readFileSync(f, 'utf8')
  const deps = [...text.matchAll(/^(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'/gm)].map((m) => resolve(dirname(f), m[1]!))
  graph.set(f, deps.filter((d) => graph.has(d) || d.endsWith('.ts')))
}

/** The module a file belongs to: `modules/<name>`, else its path under src. */
const moduleOf = (f: string) => {
  const r = relative(SRC, f)
  const m = r.match(/^modules\/([^/]+)\//)
  return m ? `modules/${m[1]}` : r
}

function reach(from: string[]): Set<string> {
  const seen = new Set<string>()
  const stack = [...from]
  while (stack.length) {
    const f = stack.pop()!
    if (seen.has(f)) continue
    seen.add(f)
    stack.push(...(graph.get(f) ?? []))
  }
  return seen
}

const inModule = (name: string) => [...graph.keys()].filter((f) => moduleOf(f) === `modules/${name}`)

describe('the notification pipeline as an import graph', () => {
  test('notifications/ reaches no e-mail file (no import, direct or not)', () => {
    const reached = [...reach(inModule('notifications'))].map((f) => relative(SRC, f))
    expect(inModule('notifications').length).toBeGreaterThan(5)
    expect(reached.filter((f) => f.startsWith('modules/email/'))).toEqual([])
  })

  test('from defaultJobs through dispatch each module is entered once: no cycle between modules', () => {
    const files = reach([join(SRC, 'jobs.ts'), join(SRC, 'services/channels.ts')])
    const edges = new Map<string, Set<string>>()
    for (const f of files) {
      for (const d of graph.get(f) ?? []) {
        const [a, b] = [moduleOf(f), moduleOf(d)]
        if (a === b) continue
        if (!edges.has(a)) edges.set(a, new Set())
        edges.get(a)!.add(b)
      }
    }
    // The pipeline's own path, in order.
    expect(edges.get('jobs.ts')?.has('modules/reminders')).toBe(true)
    expect(edges.get('modules/reminders')?.has('modules/notifications')).toBe(true)
    expect(edges.get('services/channels.ts')?.has('modules/email')).toBe(true)
    expect(edges.get('modules/email')?.has('modules/notifications')).toBe(true)
    expect(edges.get('modules/notifications')?.has('modules/email') ?? false).toBe(false)
    expect(edges.get('modules/notifications')?.has('modules/reminders') ?? false).toBe(false)
    // No module can be re-entered from one it leads to (depth-first search for a back edge).
    const state = new Map<string, 'open' | 'done'>()
    const cycles: string[] = []
    const visit = (m: string, path: string[]) => {
      state.set(m, 'open')
      for (const n of edges.get(m) ?? []) {
        if (state.get(n) === 'open') cycles.push([...path, m, n].join(' → '))
        else if (!state.has(n)) visit(n, [...path, m])
      }
      state.set(m, 'done')
    }
    visit('jobs.ts', [])
    expect(cycles).toEqual([])
  })
})
