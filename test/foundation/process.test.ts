import { describe, expect, test } from 'bun:test'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { waitFor } from '../support/wait.ts'

const ROOT = join(import.meta.dir, '..', '..')

async function freePort() {
  const s = Bun.serve({ port: 0, fetch: () => new Response() })
  const port = s.port
  s.stop(true)
  return port
}

describe('the server process', () => {
  test('a wrong configuration value stops it with a message naming the variable', async () => {
    const p = Bun.spawn(['bun', 'run', 'src/server.ts'], { cwd: ROOT, env: { ...process.env, PORT: 'eighty' }, stdout: 'pipe', stderr: 'pipe' })
    const code = await p.exited
    expect(code).toBe(1)
    expect(await new Response(p.stderr).text()).toContain('PORT')
  })

  test('starts on the embedded database, answers health, and shuts down cleanly on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cls-proc-'))
    const port = await freePort()
    const env = { ...process.env, PORT: String(port), DATA_DIR: dir, LOG_LEVEL: 'info' } as Record<string, string>
    delete env.DATABASE_URL
    const p = Bun.spawn(['bun', 'run', 'src/server.ts'], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
    try {
      const health = await waitFor(() => fetch(`http://127.0.0.1:${port}/status/health`).catch(() => undefined), { timeoutMs: 75_000, intervalMs: 250 }).catch(() => undefined)
      expect(health?.status).toBe(200)
      expect(((await health!.json()) as any).data.status).toBe('UP')
      expect(await Bun.file(join(dir, 'jwt-secret')).exists()).toBe(true)
      p.kill('SIGTERM')
      expect(await p.exited).toBe(0)
      const out = await new Response(p.stdout).text()
      const msgs = out.trim().split('\n').map((l) => JSON.parse(l).msg)
      expect(msgs).toContain('request')
      expect(msgs.at(-1)).toBe('stopped')
    } finally {
      p.kill()
      await rm(dir, { recursive: true, force: true })
    }
  }, 90_000)
})
