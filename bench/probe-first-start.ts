/**
 * Issue 25: the quick start's first start (`bun run start` on an empty DATA_DIR, embedded
 * database), measured from outside: the service's own peak (VmHWM, read while it runs) and the
 * whole process tree's (wait4's maxrss of the service, which covers its waited-for children
 * such as an initdb child). Registers a teacher and a course before reading.
 *   bun bench/probe-first-start.ts
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..')
const dir = await mkdtemp(join(tmpdir(), 'cls-first-'))
const port = 18000 + Math.floor(Math.random() * 1000)
const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', JWT_SECRET: 'x'.repeat(40), REMINDER_SCAN_CRON: 'off', DATABASE_URL: undefined }
const started = performance.now()
const p = Bun.spawn(['bun', 'run', 'src/server.ts'], { cwd: ROOT, env, stdout: 'inherit', stderr: 'inherit' })
const base = `http://127.0.0.1:${port}`
for (;;) {
  if ((await fetch(`${base}/status/health`).catch(() => undefined))?.status === 200) break
  if (p.exitCode !== null) throw new Error(`exited ${p.exitCode}`)
  await Bun.sleep(200) // polling for health
}
const healthyMs = Math.round(performance.now() - started)
await fetch(`${base}/login`).then((r) => r.arrayBuffer())
const post = (path: string, body: unknown, token?: string) =>
  fetch(`${base}/api/v1${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>)
await post('/auth/register', { username: 'probe', email: 'probe@example.test', password: 'correct horse battery', role: 'TEACHER' })
const token = (await post('/auth/login', { identifier: 'probe', password: 'correct horse battery' })).data.accessToken
await post('/courses', { title: 'Probe', description: 'x' }, token)
const own = Number(/VmHWM:\s+(\d+)/.exec(await Bun.file(`/proc/${p.pid}/status`).text())![1]) / 1024
p.kill('SIGTERM')
await p.exited
const tree = p.resourceUsage()!.maxRSS / 1024 / 1024
console.log(JSON.stringify({ healthyMs, servicePeakMB: Math.round(own), treePeakMB: Math.round(tree) }))
await rm(dir, { recursive: true, force: true })
