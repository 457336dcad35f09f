/**
 * Issue 55's read-replica row: what the replica router costs per request and what a read served
 * by the replica costs against the primary, in-process (`app.handle`, no HTTP), on the local
 * PostgreSQL and a streaming replica made with pg_basebackup (test/support/replica.ts).
 * Modes: no replica configured; replica configured and current (reads on the replica); the
 * same with a reader whose marker forces the primary. Writes: `POST /courses/join` again (a
 * no-op join that still records the marker when a replica is configured).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test bun bench/replica.ts   (PROBE_N default 1500, PROBE_CONCURRENCY default 8)
 */
import { connectReplica } from '../src/db/connect.ts'
import { createReadRouter } from '../src/db/replica.ts'
import { createLogger } from '../src/lib/log.ts'
import { sessionUser } from '../src/http/auth.ts'
import { signUp, teacherWithCourse, testApp, testDatabase, type Client } from '../test/support/harness.ts'
import { startReplica } from '../test/support/replica.ts'

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test'
const N = Number(process.env.PROBE_N ?? 1500)
const C = Number(process.env.PROBE_CONCURRENCY ?? 8)
const db = await testDatabase()
const replica = await startReplica()
const replicaSql = connectReplica(replica.through(process.env.DATABASE_URL), 10)
const read = createReadRouter({ primary: db.sql, replica: replicaSql, log: createLogger('silent'), maxLagMs: 1000, retryMs: 5000 })
const plain = await testApp()
const routed = await testApp({ deps: { read } })
const counts = { replica: 0, primary: 0 }
const counted = createReadRouter({
  primary: db.sql, replica: replicaSql, log: createLogger('silent'), maxLagMs: 1000, retryMs: 5000,
  observe: { read: (t) => counts[t]++, state: () => {} },
})
const observed = await testApp({ deps: { read: counted } })

const { teacher, courseId, inviteCode } = await teacherWithCourse(plain.api, 'Bench course')
for (let i = 0; i < 5; i++) await plain.api.post(`/courses/${courseId}/learning/units`, { token: teacher.token, json: { title: `Unit ${i}`, description: 'd' } })
const student = await signUp(plain.api, 'STUDENT')
await plain.api.post('/courses/join', { token: student.token, json: { inviteCode } })
await replica.caughtUp()

async function timed(api: Client, n: number, call: (api: Client) => Promise<number>) {
  const t = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next++ < n) {
        const status = await call(api)
        if (status >= 300) throw new Error(`status ${status}`)
      }
    }),
  )
  return (performance.now() - t) / n
}
const learning = (api: Client) => api.get(`/courses/${courseId}/learning`, { token: student.token }).then((r) => r.status)
const join = (api: Client) => api.post('/courses/join', { token: student.token, json: { inviteCode } }).then((r) => r.status)

await timed(plain.api, 200, learning)
await timed(routed.api, 200, learning)
const rows: string[] = []
for (let round = 1; round <= 2; round++) {
  const p = await timed(plain.api, N, learning)
  const r = await timed(routed.api, N, learning)
  counts.replica = counts.primary = 0
  const o = await timed(observed.api, N, learning)
  rows.push(`round ${round}: GET learning tree, ${C} at a time: no replica ${p.toFixed(3)} ms/req; replica configured ${r.toFixed(3)} ms/req (${(r / p).toFixed(2)}); observed run ${o.toFixed(3)} ms/req, ${counts.replica} on the replica, ${counts.primary} on the primary`)
  const wp = await timed(plain.api, N / 3, join)
  const wr = await timed(routed.api, N / 3, join)
  rows.push(`round ${round}: POST /courses/join (no-op write), ${C} at a time: no replica ${wp.toFixed(3)} ms/req; replica configured (marker written) ${wr.toFixed(3)} ms/req (${(wr / wp).toFixed(2)})`)
}
// The writer's next read: right after a write the marker sends it to the primary until the
// replica has the write (a few ms here).
let onPrimary = 0
for (let i = 0; i < 50; i++) {
  counts.replica = counts.primary = 0
  await observed.api.post('/courses/join', { token: student.token, json: { inviteCode } })
  await learning(observed.api)
  onPrimary += counts.primary
}
rows.push(`a read right after the reader's own write: ${onPrimary} of 50 on the primary`)
// The session statement alone, with and without the marker subquery, one at a time.
const [session] = await db.sql<{ id: string }[]>`select id from sessions where user_id = ${student.id} order by created_at desc limit 1`
for (let round = 1; round <= 2; round++) {
  const per = async (marker: boolean) => {
    const t = performance.now()
    for (let i = 0; i < N; i++) await sessionUser(db.sql, session!.id, new Date(), { marker })
    return ((performance.now() - t) / N) * 1000
  }
  const without = await per(false)
  const withMarker = await per(true)
  rows.push(`round ${round}: session statement alone: ${without.toFixed(0)} µs without the marker, ${withMarker.toFixed(0)} µs with it (${(withMarker / without).toFixed(2)})`)
}
console.log(rows.join('\n'))
await replicaSql.end({ timeout: 1 })
await replica.destroy()
await db.close()
process.exit(0)
