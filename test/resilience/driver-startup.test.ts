import { afterAll, expect, test } from 'bun:test'
import postgres from 'postgres'
import { databaseProxy } from './support.ts'

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

const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => void unhandled.push(reason)
process.on('unhandledRejection', onUnhandled)
afterAll(() => void process.off('unhandledRejection', onUnhandled))

test.skipIf(!process.env.DATABASE_URL)(
  'a backend terminated while a new connection fetches its array types: no unhandled rejection, and the reconnect serves the query',
  async () => {
    // The first connection dies when it asks for the array types; later ones pass through.
    let killed = 0
    const { proxy, url } = await databaseProxy(process.env.DATABASE_URL!, {
      intercept: (bytes, connection) => (connection === 0 && Buffer.from(bytes).includes('typcategory') ? (killed++, terminatedByAdministrator()) : undefined),
    })
    const sql = postgres(url, { max: 1, onnotice: () => {} })
    try {
      const outcome = await sql`select 1 as one`.then(
        (rows) => [...rows],
        (e: any) => e.code,
      )
      // Let a dangling rejection reach the process (it is reported after the microtasks).
      await Bun.sleep(50) // the scenario: the report of an unhandled rejection comes a tick later
      expect(killed).toBe(1)
      expect(proxy.connections).toBe(2)
      expect(unhandled.map((e: any) => e?.code ?? String(e))).toEqual([])
      // The reconnect succeeded, so the query it carried succeeds: not the dead backend's 57P01.
      expect(outcome).toEqual([{ one: 1 }])
      // And the types were fetched on the new connection: an array parameter works.
      expect([...(await sql`select ${sql.array([1, 2, 3])}::int[] as xs`)]).toEqual([{ xs: [1, 2, 3] }])
    } finally {
      await sql.end({ timeout: 1 })
      proxy.close()
    }
  },
  20_000,
)
