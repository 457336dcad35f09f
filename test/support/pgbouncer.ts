import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createConnection } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { collectOutput, onLocalPort } from './output.ts'
import { freePort } from './processes.ts'
import { waitFor } from './wait.ts'

/** Debian's `pgbouncer` package (.ci/run installs it when missing). */
export const PGBOUNCER = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer'

export interface PgBouncer {
  port: number
  /** `url` (a postgres:// URL of the local server) with its host and port replaced by the pooler's. */
  through(url: string): string
  /** What PgBouncer wrote (it logs to stderr). */
  output(): string
  stop(): Promise<void>
}

/**
 * Starts PgBouncer in transaction pooling mode on a free port in front of the PostgreSQL server of
 * PG_ADMIN_URL (default 127.0.0.1:5432, trust authentication), every database passed through
 * (`* =`). Its configuration lives in a scratch directory removed by `stop()`. PgBouncer refuses
 * to run as root: then it is started with `-u postgres` (it drops to that user).
 * `serverPoolSize`: server connections per database and user (default 10).
 */
export async function startPgBouncer(opts: { serverPoolSize?: number } = {}): Promise<PgBouncer> {
  const admin = new URL(process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres')
  const port = await freePort()
  const dir = await mkdtemp(join(tmpdir(), 'cls-pgbouncer-'))
  const asRoot = process.getuid?.() === 0
  const users = join(dir, 'users.txt')
  await writeFile(users, `"${decodeURIComponent(admin.username || 'postgres')}" ""\n`)
  const ini = join(dir, 'pgbouncer.ini')
  await writeFile(
    ini,
    [
      '[databases]',
      `* = host=${admin.hostname} port=${admin.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = trust',
      `auth_file = ${users}`,
      'pool_mode = transaction',
      `default_pool_size = ${opts.serverPoolSize ?? 10}`,
      'max_client_conn = 1000',
      'ignore_startup_parameters = extra_float_digits',
      // Quiet: a line per connection would flood the output kept for a failure message.
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  )
  if (asRoot) {
    const { uid, gid } = await postgresUser()
    await chown(dir, uid, gid)
    for (const f of [users, ini]) await chown(f, uid, gid)
  }
  await chmod(dir, 0o755)
  const proc = Bun.spawn([PGBOUNCER, ...(asRoot ? ['-u', 'postgres'] : []), ini], { stdout: 'pipe', stderr: 'pipe' })
  const output = collectOutput(proc)
  const stop = async () => {
    proc.kill('SIGTERM')
    await proc.exited
    await rm(dir, { recursive: true, force: true })
  }
  try {
    await waitFor(
      async () => {
        if (proc.exitCode !== null) throw new Error(`pgbouncer exited with ${proc.exitCode}`)
        return listening(port)
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'pgbouncer to listen' },
    )
  } catch (e) {
    await stop()
    throw new Error(`${(e as Error).message}:\n${output()}`)
  }
  return {
    port,
    through: (url: string) => onLocalPort(url, port),
    output,
    stop,
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = createConnection({ host: '127.0.0.1', port })
    s.once('connect', () => {
      s.destroy()
      done(true)
    })
    s.once('error', () => done(false))
  })
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const line = (await Bun.file('/etc/passwd').text()).split('\n').find((l) => l.startsWith('postgres:'))
  if (!line) throw new Error('no postgres user to run pgbouncer as (it refuses to run as root)')
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}
