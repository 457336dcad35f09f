import { describe, expect, test } from 'bun:test'
import { heapStats } from 'bun:jsc'
import { dirname, join } from 'node:path'

// Issue 30.1: one process lost two thirds of its throughput under sustained load. The CPU profile
// of the old process showed postgres.js's connection queues (`remove` in src/queue.js, 39 % of
// the time): `shift` only blanked the slot it took and reset the array when the queue emptied,
// so the `busy` queue of a pool that never runs dry (every connection in use) grew by one slot
// per query, and every `move` of a connection scanned all of them (indexOf + splice). The queue
// the pool loads (the package's `bun` entry, patched in patches/postgres@3.4.9.patch) is tested.
const { default: Queue } = (await import(join(dirname(Bun.resolveSync('postgres', import.meta.dir)), 'queue.js'))) as {
  default: <T>(initial?: T[]) => { readonly length: number; push(x: T): T; shift(): T | undefined; remove(x: T): T | null }
}

describe('postgres.js connection queue', () => {
  test('a queue that never runs dry does not grow with the number of operations', () => {
    const q = Queue<object>()
    const a = {}
    const b = {}
    q.push(a)
    q.push(b)
    Bun.gc(true)
    const before = heapStats().heapSize
    // A busy pool: each query takes a connection from the front and puts one back at the end.
    for (let i = 0; i < 2_000_000; i++) q.push(q.shift()!)
    Bun.gc(true)
    const grown = heapStats().heapSize - before
    // The old queue kept one slot per operation: about 16 MB here.
    expect(grown).toBeLessThan(4 * 1024 * 1024)
    expect(q.length).toBe(2)
    expect(q.remove({})).toBeNull()
    expect([q.shift(), q.shift(), q.length]).toEqual([a, b, 0])
  })

  test('first in, first out; remove takes an element from anywhere, only once', () => {
    const items = Array.from({ length: 5000 }, (_, i) => ({ i }))
    const q = Queue(items.slice(0, 3))
    for (const x of items.slice(3)) q.push(x)
    const out: number[] = []
    for (let i = 0; i < 2000; i++) out.push(q.shift()!.i)
    expect(out).toEqual(items.slice(0, 2000).map((x) => x.i))
    expect(q.remove(items[1000]!)).toBeNull() // already taken
    expect(q.remove(items[2500]!)).toBe(items[2500]!)
    expect(q.remove(items[2500]!)).toBeNull()
    expect(q.length).toBe(2999)
    const rest: number[] = []
    while (q.length) rest.push(q.shift()!.i)
    expect(rest).toEqual(items.slice(2000).filter((x) => x.i !== 2500).map((x) => x.i))
    expect(q.shift()).toBeUndefined()
  })
})
