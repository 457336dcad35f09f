import { describe, expect, test } from 'bun:test'
import { Glob } from 'bun'
import { dirname, join, relative, resolve } from 'node:path'

/*
 * No folder-level import cycle across src/ (issue 50): every relative import (type-only ones
 * too: they are dependencies of the design) of a file in one folder on a file in another is an
 * edge between the two folders; a file directly in src/ (deps.ts, config.ts, server.ts, …) is a
 * node of its own. The graph must have no strongly connected component of more than one node.
 * When this fails it names each cycle and the imports that make it. The web front end
 * (src/web/client/, its own bundle: docs/web.md) is a separate program and left out; what it
 * imports of the service's tree (src/lib/due.ts) is still an edge.
 */
const SRC = resolve(import.meta.dir, '../../src')

type Graph = Map<string, Map<string, string[]>>

/** The folder graph of the TypeScript files under `root`: folder → folder → the imports behind the edge. */
export async function folderGraph(root: string): Promise<Graph> {
  const node = (file: string) => (dirname(file) === '.' ? file.replace(/\.tsx?$/, '') : dirname(file))
  const graph: Graph = new Map()
  for (const file of new Glob('**/*.{ts,tsx}').scanSync({ cwd: root })) {
    if (file.startsWith('web/client/')) continue
    const text = await Bun.file(join(root, file)).text()
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?[^'";]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/gm)) {
      const target = relative(root, resolve(root, dirname(file), m[1]!))
      if (target.startsWith('..')) continue
      const [a, b] = [node(file), node(target)]
      if (a === b) continue
      const out = graph.get(a) ?? new Map<string, string[]>()
      graph.set(a, out)
      out.set(b, [...(out.get(b) ?? []), `${file} → ${target}`])
    }
  }
  return graph
}

/** The strongly connected components of more than one node (Tarjan). */
export function cycles(graph: Graph): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (v: string) => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1) found.push(component.sort())
    }
  }
  const nodes = new Set([...graph.keys(), ...[...graph.values()].flatMap((m) => [...m.keys()])])
  for (const v of [...nodes].sort()) if (!index.has(v)) visit(v)
  return found
}

describe('folder-level imports across src/', () => {
  test('no cycle', async () => {
    const graph = await folderGraph(SRC)
    expect(graph.size).toBeGreaterThan(10)
    const described = cycles(graph).map((c) => ({
      cycle: c.join(' ↔ '),
      imports: c.flatMap((a) => [...(graph.get(a) ?? [])].filter(([b]) => c.includes(b)).flatMap(([, why]) => why.slice(0, 2))),
    }))
    expect(described).toEqual([])
  })

  test('the check finds a cycle when there is one', () => {
    const g: Graph = new Map([
      ['modules/a', new Map([['modules/b', ['modules/a/x.ts → modules/b/y.ts']]])],
      ['modules/b', new Map([['deps', ['modules/b/y.ts → deps.ts']]])],
      ['deps', new Map([['modules/a', ['deps.ts → modules/a/z.ts']]])],
      ['http', new Map([['deps', ['http/auth.ts → deps.ts']]])],
    ])
    expect(cycles(g)).toEqual([['deps', 'modules/a', 'modules/b']])
  })
})
