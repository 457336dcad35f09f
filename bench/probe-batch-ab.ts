// Backend CPU of one dispatch batch under SQL variants (not part of bun test): on a mooc bench database whose
// due events were seeded by `PROBE_SETUP_ONLY=1 PROBE_MOOC=1 bun bench/probe-dispatch.ts`, each rep runs, per
// variant, in a transaction that is rolled back: the variant's SQL (e.g. a replaced trigger function, or nothing),
// then deliverDue of PROBE_BATCH events with the e-mail channel. Interleaved, so drift hits every variant alike.
//   DATABASE_URL=… bun bench/probe-batch-ab.ts base.sql other.sql   (PROBE_REPS, PROBE_BATCH)
import { readFileSync } from 'node:fs'
import postgres from 'postgres'
import type { Sql } from '../src/db/connect.ts'
import { emailChannel } from '../src/modules/email/channel.ts'
import { deliverDue } from '../src/modules/reminders/delivery.ts'

const sql = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} }) as unknown as Sql
const files = process.argv.slice(2)
const reps = Number(process.env.PROBE_REPS ?? 10)
const batch = Number(process.env.PROBE_BATCH ?? 2000)
const [meta] = await sql<{ anchor: Date }[]>`select anchor from bench_seed order by seeded_at desc limit 1`
const now = new Date(meta!.anchor.getTime() + 3600_000)
const pid = (await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid
// ns on CPU (schedstat), in ms: /proc/<pid>/stat counts 10 ms ticks, too coarse for one batch.
const ticks = () => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6
const cpu: Record<string, number[]> = Object.fromEntries(files.map((f) => [f, []]))
const bodies: Record<string, string> = Object.fromEntries(files.map((f) => [f, readFileSync(f, 'utf8')]))
for (let r = 0; r < reps; r++) {
  for (const f of r % 2 ? [...files].reverse() : files) {
    await sql.begin(async (tx) => {
      if (bodies[f]!.trim()) await tx.unsafe(bodies[f]!)
      const c0 = ticks()
      const b = await deliverDue(tx, now, batch, [emailChannel])
      cpu[f]!.push(Math.round((ticks() - c0) * 10) / 10)
      if (b.claimed !== batch) throw new Error(`claimed ${b.claimed}`)
      throw Object.assign(new Error('rollback'), { rollback: true })
    }).catch((e) => { if (!e.rollback) throw e })
  }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
for (const f of files) console.log(`${f}: median ${med(cpu[f]!)} ms, mean ${(cpu[f]!.reduce((a, b) => a + b, 0) / reps).toFixed(1)} ms  [${cpu[f]!.join(' ')}]`)
await sql.end()
