import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { freePort } from './processes.ts'
import { collectOutput, onLocalPort } from './output.ts'
import { waitFor } from './wait.ts'

/** Debian's PostgreSQL binaries (the version of the local server; REPLICA_PG_BIN overrides). */
async function pgBin(): Promise<string> {
  if (process.env.REPLICA_PG_BIN) return process.env.REPLICA_PG_BIN
  for (const v of ['17', '16', '15', '14', '13']) {
    const dir = `/usr/lib/postgresql/${v}/bin`
    if (await Bun.file(join(dir, 'postgres')).exists()) return dir
  }
  throw new Error('no /usr/lib/postgresql/<version>/bin/postgres to run a replica with')
}

export interface Replica {
  port: number
  /** `url` (a postgres:// URL of the local server) with its host and port replaced by the replica's. */
  through(url: string): string
  /** An admin connection to the replica (pg_wal_replay_pause and friends); closed by `destroy`. */
  admin: postgres.Sql
  /** Stops the replica's server (fast shutdown); `start` brings it back on the same port. */
  stop(): Promise<void>
  start(): Promise<void>
  /** Waits until the replica has replayed everything the primary had written when called. */
  caughtUp(): Promise<void>
  /** Stops it and removes its data directory. */
  destroy(): Promise<void>
  output(): string
}

/**
 * A real streaming read replica of the local PostgreSQL server (PG_ADMIN_URL, default
 * 127.0.0.1:5432): `pg_basebackup -R -X stream` into a scratch directory, then Debian's
 * `postgres` on a free port, as the `postgres` OS user when running as root (the server refuses
 * root). The primary's pg_hba.conf needs `host replication all 127.0.0.1/32 trust` (.ci/run
 * adds it). No replication slot: a replica that the tests forget to stop holds no WAL back.
 */
export async function startReplica(): Promise<Replica> {
  const adminUrl = new URL(process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres')
  const bin = await pgBin()
  const port = await freePort()
  const dir = await mkdtemp(join(tmpdir(), 'cls-replica-'))
  const data = join(dir, 'data')
  const asRoot = process.getuid?.() === 0
  const runAs = (cmd: string[]) => (asRoot ? ['setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups', ...cmd] : cmd)
  if (asRoot) {
    const { uid, gid } = await postgresUser()
    await chown(dir, uid, gid)
  }
  const backup = Bun.spawn(
    runAs([join(bin, 'pg_basebackup'), '-R', '-X', 'stream', '-c', 'fast', '-D', data, '-h', adminUrl.hostname, '-p', adminUrl.port || '5432', '-U', decodeURIComponent(adminUrl.username || 'postgres')]),
    { stdout: 'pipe', stderr: 'pipe' },
  )
  const [code, berr] = await Promise.all([backup.exited, new Response(backup.stderr).text()])
  if (code !== 0) {
    await rm(dir, { recursive: true, force: true })
    throw new Error(`pg_basebackup failed (exit ${code}); does pg_hba.conf allow "host replication all 127.0.0.1/32 trust"?\n${berr}`)
  }
  // Debian keeps postgresql.conf and pg_hba.conf in /etc: the copied directory has neither.
  for (const [name, text] of [
    ['postgresql.conf', ''],
    ['pg_hba.conf', 'local all all trust\nhost all all 127.0.0.1/32 trust\n'],
  ] as const) {
    const file = join(data, name)
    if (await Bun.file(file).exists()) continue
    await writeFile(file, text)
    if (asRoot) {
      const { uid, gid } = await postgresUser()
      await chown(file, uid, gid)
    }
  }
  // One collector per start (the tests stop and start the replica again).
  const outputs: (() => string)[] = []
  const output = () => outputs.map((o) => o()).join('')
  let proc: ReturnType<typeof Bun.spawn> | undefined
  const url = (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`
  const answers = async () => {
    const probe = postgres(url('postgres'), { max: 1, connect_timeout: 1, onnotice: () => {} })
    try {
      await probe`select 1`
      return true
    } catch {
      return false
    } finally {
      await probe.end({ timeout: 1 }).catch(() => {})
    }
  }
  const start = async () => {
    proc = Bun.spawn(
      runAs([
        join(bin, 'postgres'), '-D', data, '-p', String(port),
        '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`, '-c', 'hot_standby=on',
        '-c', 'logging_collector=off', '-c', 'shared_buffers=16MB', '-c', 'fsync=off',
        // Replay answers quickly after a resume; the tests pause it on purpose.
        '-c', 'wal_receiver_status_interval=1', '-c', 'hot_standby_feedback=off',
      ]),
      { stdout: 'pipe', stderr: 'pipe' },
    )
    outputs.push(collectOutput(proc))
    const p = proc
    await waitFor(
      async () => {
        if (p.exitCode !== null) throw new Error(`the replica's postgres exited with ${p.exitCode}:\n${output()}`)
        return answers()
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'the replica to accept connections' },
    )
  }
  const stop = async () => {
    if (!proc || proc.exitCode !== null) return
    proc.kill('SIGINT')
    await proc.exited
  }
  try {
    await start()
  } catch (e) {
    await stop().catch(() => {})
    await rm(dir, { recursive: true, force: true })
    throw e
  }
  const admin = postgres(url('postgres'), { max: 1, onnotice: () => {}, connect_timeout: 2 })
  const primary = postgres(adminUrl.toString(), { max: 1, onnotice: () => {} })
  return {
    port,
    through: (u: string) => onLocalPort(u, port),
    admin,
    stop,
    start,
    async caughtUp() {
      const [row] = await primary<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`
      const lsn = row!.lsn
      await waitFor(
        async () => {
          const [row] = await admin<{ ok: boolean }[]>`select pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as ok`
          return row?.ok
        },
        { timeoutMs: 15_000, intervalMs: 20, what: `the replica to replay up to ${lsn}` },
      )
    },
    async destroy() {
      await admin.end({ timeout: 1 }).catch(() => {})
      await primary.end({ timeout: 1 }).catch(() => {})
      await stop()
      await rm(dir, { recursive: true, force: true })
    },
    output,
  }
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const line = (await Bun.file('/etc/passwd').text()).split('\n').find((l) => l.startsWith('postgres:'))
  if (!line) throw new Error('no postgres user to run the replica as (postgres refuses to run as root)')
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}
