// Backend CPU time of SQL variants (a loaded machine distorts wall time far more): each variant
// runs in a transaction that is rolled back, PROBE_REPS times, interleaved. Not part of bun test.
//   DATABASE_URL=… bun bench/cpu-variants.ts file.sql   (variants separated by lines "-- @name")
import { readFileSync } from 'node:fs'
import postgres from 'postgres'

const sql = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} })
const text = readFileSync(process.argv[2]!, 'utf8')
const [setup, ...parts] = text.split(/^-- @/m)
const variants = parts.map((p) => ({ name: p.split('\n')[0]!.trim(), body: p.split('\n').slice(1).join('\n') }))
const reps = Number(process.env.PROBE_REPS ?? 2)
const pid = (await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid
const ticks = () => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(f[11]) + Number(f[12])) * 10
}
const vars: Record<string, string> = {}
for (const line of setup!.split('\n')) {
  const m = /^-- set (\w+) = (.*)$/.exec(line)
  if (m) vars[m[1]!] = String((await sql.unsafe(m[2]!))[0]!.v)
}
const fill = (s: string) => s.replace(/:(\w+)/g, (x, k) => (k in vars ? `'${vars[k]}'` : x))
const results: Record<string, number[]> = {}
for (let r = 0; r < reps; r++) {
  for (const v of variants) {
    const c0 = ticks()
    const w0 = performance.now()
    await sql.begin(async (tx) => {
      for (const st of fill(v.body).split(/;\s*$/m).map((s) => s.trim()).filter(Boolean)) await tx.unsafe(st)
      throw Object.assign(new Error('rollback'), { rollback: true })
    }).catch((e) => { if (!e.rollback) throw e })
    ;(results[v.name] ??= []).push(ticks() - c0)
    console.log(`${v.name}: CPU ${ticks() - c0} ms, wall ${(performance.now() - w0).toFixed(0)} ms`)
  }
}
for (const [k, xs] of Object.entries(results)) console.log(`${k}: CPU ms ${xs.join(' / ')}, min ${Math.min(...xs)}`)
await sql.end()
