import { afterAll, expect, test } from 'bun:test'
import type { Socket } from 'bun'
import postgres from 'postgres'

/*
 * postgres.js fetches the array types as the first statement of every new connection
 * (`fetch_types`, on by default) from an async function whose promise nobody holds. When the
 * backend is terminated at that moment (a database restart, `pg_terminate_backend`, a failover),
 * the driver reconnected, but:
 *   - the types query's error escaped as an unhandled rejection, which ends a Bun (or Node)
 *     process: the service died under the fault test's terminations (1 run in 2 with 150 cuts);
 *   - the first query after the successful reconnect failed with the old backend's 57P01.
 * Upstream: porsager/postgres #1192, #1205, #1223 (and #279); fixed in patches/postgres@3.4.9.patch.
 *
 * Reproduced exactly with a proxy in front of a real PostgreSQL: on the first connection, when
 * the driver sends the array-types query, the proxy answers with the ErrorResponse a terminated
 * backend sends (FATAL 57P01) and closes; every later connection passes through untouched.
 */

const SQLSTATE_TERMINATED = '57P01'

/** The ErrorResponse message of `pg_terminate_backend` (protocol 3.0). */
function terminatedByAdministrator(): Uint8Array {
  const fields = ['SFATAL', 'VFATAL', `C${SQLSTATE_TERMINATED}`, 'Mterminating connection due to administrator command']
  const body = Buffer.concat([...fields.map((f) => Buffer.from(f + '\0')), Buffer.from([0])])
  const head = Buffer.alloc(5)
  head.write('E', 0)
  head.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
}

interface Side {
  peer?: Socket<Side>
  early: Uint8Array[]
  killer?: boolean
}

/** Forwards to PostgreSQL; the first connection dies when it asks for the array types. */
function killFirstTypesFetch(target: URL) {
  let connections = 0
  let killed = 0
  const listener = Bun.listen<Side>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(client) {
        client.data = { early: [], killer: connections++ === 0 }
        void Bun.connect<Side>({
          hostname: target.hostname,
          port: Number(target.port || 5432),
          data: { early: [], peer: client },
          socket: {
            open(upstream) {
              client.data.peer = upstream
              for (const b of client.data.early) upstream.write(b)
              client.data.early = []
            },
            data(_upstream, bytes) {
              client.write(bytes)
            },
            close() {
              client.end()
            },
            error(upstream) {
              upstream.end()
            },
          },
        }).catch(() => client.end())
      },
      data(client, bytes) {
        if (client.data.killer && Buffer.from(bytes).includes('typcategory')) {
          killed++
          client.write(terminatedByAdministrator())
          client.end()
          client.data.peer?.end()
          return
        }
        if (client.data.peer) client.data.peer.write(bytes)
        else client.data.early.push(bytes)
      },
      close(client) {
        client.data.peer?.end()
      },
    },
  })
  return { port: listener.port, killed: () => killed, connections: () => connections, stop: () => listener.stop(true) }
}

const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => void unhandled.push(reason)
process.on('unhandledRejection', onUnhandled)
afterAll(() => void process.off('unhandledRejection', onUnhandled))

test.skipIf(!process.env.DATABASE_URL)(
  'a backend terminated while a new connection fetches its array types: no unhandled rejection, and the reconnect serves the query',
  async () => {
    const target = new URL(process.env.DATABASE_URL!)
    const proxy = killFirstTypesFetch(target)
    const via = new URL(target)
    via.hostname = '127.0.0.1'
    via.port = String(proxy.port)
    const sql = postgres(via.toString(), { max: 1, onnotice: () => {} })
    try {
      const outcome = await sql`select 1 as one`.then(
        (rows) => [...rows],
        (e: any) => e.code,
      )
      // Let a dangling rejection reach the process (it is reported after the microtasks).
      await Bun.sleep(50) // the scenario: the report of an unhandled rejection comes a tick later
      expect(proxy.killed()).toBe(1)
      expect(proxy.connections()).toBe(2)
      expect(unhandled.map((e: any) => e?.code ?? String(e))).toEqual([])
      // The reconnect succeeded, so the query it carried succeeds: not the dead backend's 57P01.
      expect(outcome).toEqual([{ one: 1 }])
      // And the types were fetched on the new connection: an array parameter works.
      expect([...(await sql`select ${sql.array([1, 2, 3])}::int[] as xs`)]).toEqual([{ xs: [1, 2, 3] }])
    } finally {
      await sql.end({ timeout: 1 })
      proxy.stop()
    }
  },
  20_000,
)
