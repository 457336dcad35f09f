/**
 * Issue 25: where PGlite's first initialisation (initdb) spends memory. Runs one PGlite.create
 * on an empty directory with the options given as JSON in argv[2] and prints this process's
 * peak RSS (VmHWM) and the wasm heap sizes. Run it once per variant (a fresh process each):
 *   bun bench/probe-initdb.ts '{"initialMemory": 33554432}'
 */
import { PGlite } from '@electric-sql/pglite'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { embeddedOptions } from '../src/db/connect.ts'

const hwm = async () => Number(/VmHWM:\s+(\d+)/.exec(await Bun.file('/proc/self/status').text())![1]) / 1024
const extra = JSON.parse(process.argv[2] ?? '{}')
const dir = join(await mkdtemp(join(tmpdir(), 'cls-initdb-')), 'pgdata')
// The instance initdb runs in (PGlite makes a second one): its heap size when it closes.
const inner: number[] = []
const create = PGlite.create.bind(PGlite)
;(PGlite as any).create = async (...args: any[]) => {
  const inst: any = await (create as any)(...args)
  const close = inst.close.bind(inst)
  inst.close = async () => {
    inner.push(Math.round(inst.mod.HEAPU8.byteLength / 1024 / 1024), Math.round(await hwm()))
    return close()
  }
  return inst
}
let rssMax = 0
const sampler = setInterval(async () => void (rssMax = Math.max(rssMax, Number(/VmRSS:\s+(\d+)/.exec(await Bun.file('/proc/self/status').text())![1]) / 1024)), 20)
const before = await hwm()
const started = performance.now()
const db = await PGlite.create(dir, { ...(await embeddedOptions()), ...extra })
const took = performance.now() - started
const afterInit = await hwm()
const heap = (db as any).mod?.HEAPU8?.byteLength / 1024 / 1024
const [row] = (await db.query<{ s: string; f: string }>(`select current_setting('shared_buffers') as s, current_setting('fsync') as f`)).rows
await db.close()
clearInterval(sampler)
console.log(JSON.stringify({ extra, startMB: before.toFixed(0), peakMB: afterInit.toFixed(0), heapMB: heap?.toFixed(0), initdbInstance: { heapMB: inner[0], peakAtCloseMB: inner[1] }, ms: Math.round(took), sharedBuffers: row?.s, fsync: row?.f }))
await rm(dirname(dir), { recursive: true, force: true })
function dirname(p: string) {
  return p.slice(0, p.lastIndexOf('/'))
}
