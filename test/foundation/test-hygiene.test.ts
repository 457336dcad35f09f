import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const ROOT = join(import.meta.dir, '..')

/**
 * `expect(promise).resolves` / `.rejects` in bun:test do not await: they spin the event loop
 * synchronously until the promise settles. Called from a continuation that runs inside a
 * setImmediate callback, immediates queued in the same batch cannot run meanwhile (upstream
 * oven-sh/bun #33261, PRs #39103 and #39268, not released in 1.4.5). postgres.js flushes its
 * writes from setImmediate, so a test that waited on a browser through the in-process server
 * froze its own database write until Playwright's 15 s timeout: the e-mail settings test failed
 * in CI that way (a login whose Bind/Execute sat in the driver's buffer). Await the promise first,
 * then assert: `expect(await p).toBe(…)`.
 */
describe('test hygiene', () => {
  test('no test uses expect(…).resolves or expect(…).rejects', async () => {
    const offenders: string[] = []
    for await (const file of new Bun.Glob('**/*.ts').scan({ cwd: ROOT })) {
      const path = join(ROOT, file)
      if (path === import.meta.path) continue
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/\)\s*\.(resolves|rejects)\b/.test(line)) offenders.push(`${relative(ROOT, path)}:${i + 1}: ${line.trim()}`)
        })
    }
    expect(offenders).toEqual([])
  })

  /*
   * Waiting for state is polling (`waitFor`/`eventually` in test/support/wait.ts): a fixed sleep
   * followed by a check fails on a loaded machine and wastes time on an idle one. A sleep that
   * is the scenario itself (load between two cuts, a slow handler, a sampling period) stays, and
   * says so in a comment on its line or the line before.
   */
  test('every sleep in a test says why it is not a wait for state', async () => {
    const offenders: string[] = []
    for await (const file of new Bun.Glob('**/*.ts').scan({ cwd: ROOT })) {
      const path = join(ROOT, file)
      if (path === import.meta.path || file === join('support', 'wait.ts')) continue
      const lines = readFileSync(path, 'utf8').split('\n')
      lines.forEach((line, i) => {
        if (!/\bBun\.sleep\(|\bsetTimeout\(/.test(line)) return
        const before = lines[i - 1]?.trim() ?? ''
        const explained = /\/\/|\/\*/.test(line) || before.startsWith('//') || before.endsWith('*/')
        if (!explained) offenders.push(`${relative(ROOT, path)}:${i + 1}: ${line.trim()}`)
      })
    }
    expect(offenders).toEqual([])
  })
})
