import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createConnection, createServer, type Server, type Socket } from 'node:net'
import postgres from 'postgres'
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.ts'

/*
 * Issue 55: with prepared statements off (the service behind a transaction-mode PgBouncer),
 * postgres.js described every parameterised statement in a round trip of its own before running
 * it, and stopped pipelining behind it: pooled mode served about a fifth of the prepared
 * throughput. The patch (patches/postgres@3.4.9.patch) remembers the described parameter types of
 * a statement text per connection. A relay between the driver and PgBouncer counts the
 * round trips that only describe (Describe then Flush); the values (arrays, JSON, dates, nulls) must still come
 * back exact on the remembered path. PostgreSQL pass only (the embedded pass has no pooler).
 */
describe.skipIf(!process.env.DATABASE_URL)('prepared statements off: described once per statement text', () => {
  let bouncer: PgBouncer
  let relay: Server
  let relayPort = 0
  let describes = 0
  const sockets: Socket[] = []

  beforeAll(async () => {
    bouncer = await startPgBouncer({ serverPoolSize: 2 })
    relay = createServer((client) => {
      const server = createConnection({ host: '127.0.0.1', port: bouncer.port })
      sockets.push(client, server)
      // Frontend messages after the start-up packet: a type byte, then an int32 length (itself included).
      let started = false
      let pending = Buffer.alloc(0)
      let previous = 0
      client.on('data', (chunk: Buffer) => {
        server.write(chunk)
        pending = Buffer.concat([pending, chunk])
        for (;;) {
          if (!started) {
            if (pending.length < 4) break
            const len = pending.readInt32BE(0)
            if (pending.length < len) break
            const code = pending.readInt32BE(4)
            pending = pending.subarray(len)
            // SSLRequest (80877103) is answered by one byte and followed by the real start-up packet.
            if (code !== 80877103) started = true
            continue
          }
          if (pending.length < 5) break
          const len = pending.readInt32BE(1)
          if (pending.length < len + 1) break
          // A describe round trip: Describe ('D') then Flush ('H'), nothing run yet. A statement run
          // at once sends Parse, Describe, Bind, Execute, Flush.
          if (pending[0] === 0x48 && previous === 0x44) describes++
          previous = pending[0]!
          pending = pending.subarray(len + 1)
        }
      })
      server.on('data', (chunk) => client.write(chunk))
      client.on('close', () => server.destroy())
      server.on('close', () => client.destroy())
      client.on('error', () => server.destroy())
      server.on('error', () => client.destroy())
    })
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve))
    relayPort = (relay.address() as { port: number }).port
  })

  afterAll(async () => {
    for (const s of sockets) s.destroy()
    await new Promise<void>((resolve) => relay?.close(() => resolve()))
    await bouncer?.stop()
  })

  test('a repeated statement is described once and its values stay exact', async () => {
    const url = new URL(process.env.DATABASE_URL!)
    url.hostname = '127.0.0.1'
    url.port = String(relayPort)
    const sql = postgres(url.toString(), { prepare: false, max: 1, onnotice: () => {} })
    try {
      const at = new Date('2026-12-04T10:00:00.000Z')
      for (let i = 0; i < 40; i++) {
        const [row] = await sql<{ n: number; s: string; a: number[]; j: { k: number }; d: Date; z: string | null }[]>`
          select ${i}::int as n, ${'x' + i} as s, ${[i, i + 1]}::int[] as a, ${sql.json({ k: i })}::jsonb as j,
                 ${at}::timestamptz as d, ${null}::text as z`
        expect(row).toEqual({ n: i, s: 'x' + i, a: [i, i + 1], j: { k: i }, d: at, z: null })
      }
      // Each statement in transaction mode may land on either of PgBouncer's two server
      // connections: the types are the statement's, not a server connection's, so that is fine.
      expect(describes).toBe(1)
      // Another statement text is described once more.
      await sql`select ${1}::int as one`
      await sql`select ${2}::int as one`
      expect(describes).toBe(2)
      // Pipelined: 50 statements sent at once all come back right.
      const all = await Promise.all(Array.from({ length: 50 }, (_, i) => sql<{ n: number }[]>`select ${i}::int + 1 as n`))
      expect(all.map((r) => r[0]!.n)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
      expect(describes).toBe(3)
    } finally {
      await sql.end()
    }
  })
})
