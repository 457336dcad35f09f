// Backend CPU time (utime+stime of the PostgreSQL backend, from /proc) of statements run in
// rolled-back transactions: less sensitive to a loaded machine than wall time. Not part of bun test.
import { readFileSync } from 'node:fs'
import postgres from 'postgres'

const url = process.env.DATABASE_URL!
export const sql = postgres(url, { onnotice: () => {}, max: 1 })
const pid = (await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid
const ticks = () => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return Number(f[11]) + Number(f[12])
}
/** Runs `body` (inside a transaction that is rolled back) `n` times; returns backend CPU ms per run and wall ms (min). */
export async function cpu(label: string, n: number, body: (tx: postgres.TransactionSql) => Promise<unknown>) {
  let cpuTicks = 0
  let best = Infinity
  for (let i = 0; i < n; i++) {
    const t0 = ticks()
    const w0 = performance.now()
    await sql.begin(async (tx) => {
      await body(tx)
      throw new Error('rollback')
    }).catch((e) => { if (e.message !== 'rollback') throw e })
    best = Math.min(best, performance.now() - w0)
    cpuTicks += ticks() - t0
  }
  console.log(`${label}: backend CPU ${((cpuTicks * 10) / n).toFixed(0)} ms/run, wall min ${best.toFixed(0)} ms (n=${n})`)
}
