/**
 * E-mail throughput (issue 30.2): `bun run bench/probe-email.ts`. On a fresh database of its own
 * (cls_probe_mail_<time>, dropped afterwards) it queues PROBE_MAILS (100,000) mails for as many
 * students, starts a local SMTP server (bench/smtp-sink.ts: smtp-server with its defaults, the
 * 100 ms greeting delay included) and PROBE_INSTANCES (2) sender processes (bench/email-sender.ts,
 * PROBE_SENDERS runs each), and times the outbox from full to empty, with the CPU time per mail
 * of the senders and of the server. Checks: every row sent once,
 * the server received exactly PROBE_MAILS mails with as many distinct Message-IDs.
 * PROBE_ROOT runs the senders of another tree (an older commit) for the before figure.
 */
import { loadavg } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { migrate } from '../src/db/migrate.ts'

const N = Number(process.env.PROBE_MAILS ?? 100_000)
const INSTANCES = Number(process.env.PROBE_INSTANCES ?? 2)
/** PROBE_PROFILE_DIR: CPU profiles (markdown) of the sender processes go there. */
const prof = process.env.PROBE_PROFILE_DIR
const admin = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const name = `cls_probe_mail_${Date.now().toString(36)}`
const a = postgres(admin, { max: 1, onnotice: () => {} })
await a.unsafe(`create database ${name}`)
await a.end()
const u = new URL(admin)
u.pathname = `/${name}`
const url = u.toString()
const sql = postgres(url, { max: 4, onnotice: () => {} })

async function lineOf(proc: Bun.Subprocess<'ignore', 'pipe', 'inherit'>, re: RegExp) {
  const reader = proc.stdout.getReader()
  let text = ''
  for (;;) {
    const m = re.exec(text)
    if (m) return (reader.releaseLock(), m)
    const { value, done } = await reader.read()
    if (done) throw new Error(`no ${re} in: ${text}`)
    text += new TextDecoder().decode(value)
  }
}

try {
  await migrate(sql)
  const t0 = performance.now()
  await sql.begin(async (tx) => {
    await tx`
      insert into users (id, username, email, password_hash, display_name, role, email_verified)
      select gen_random_uuid(), 'mail' || i, 'mail' || i || '@example.test', 'x', 'Student ' || i, 'STUDENT', true
        from generate_series(1, ${N}) i`
    await tx`
      insert into notifications (id, user_id, notification_type, title, content, action_path, delivered_at)
      select gen_random_uuid(), id, 'ANNOUNCEMENT', 'Exam room changed', 'The exam moves to hall B.', '/messages', now()
        from users`
    await tx`
      insert into email_outbox (id, notification_id, user_id, created_at, next_attempt_at)
      select id, id, user_id, delivered_at, delivered_at from notifications`
  })
  await sql`analyze`
  console.log(`queued ${N} mails in ${Math.round(performance.now() - t0)} ms`)

  const sink = Bun.spawn([process.execPath, ...(prof ? ['--cpu-prof-md', `--cpu-prof-dir=${prof}/sink`] : []), join(import.meta.dir, 'smtp-sink.ts')], { stdout: 'pipe', stderr: 'inherit' })
  const port = Number((await lineOf(sink, /LISTENING (\d+)/))[1])
  const started = performance.now()
  const senders = Array.from({ length: INSTANCES }, () =>
    Bun.spawn([process.execPath, ...(prof ? ['--cpu-prof-md', `--cpu-prof-dir=${prof}`] : []), join(import.meta.dir, 'email-sender.ts')], {
      env: { ...process.env, DATABASE_URL: url, SMTP_URL: `smtp://127.0.0.1:${port}` },
      stdout: 'pipe',
      stderr: 'inherit',
    }),
  )
  const sentLines = (await Promise.all(senders.map((p) => lineOf(p, /SENT (\d+) CPU (\d+)/))))
  const sent = sentLines.map((m) => Number(m[1]))
  const senderCpu = sentLines.reduce((a, m) => a + Number(m[2]), 0)
  const seconds = (performance.now() - started) / 1000
  sink.kill('SIGTERM')
  const report = JSON.parse((await lineOf(sink, /SINK (\{.*\})/))[1]!) as { received: number; unique: number; cpuMs: number }
  const [state] = await sql<{ open: number; sent: number; multi: number }[]>`
    select count(*) filter (where sent_at is null)::int as open, count(*) filter (where sent_at is not null)::int as sent,
           count(*) filter (where attempts > 1)::int as multi
      from email_outbox`
  const rate = N / seconds
  const once = report.received === N && report.unique === N && state!.open === 0 && state!.sent === N
  console.log(`senders: ${sent.join(' + ')} = ${sent.reduce((x, y) => x + y, 0)}; server received ${report.received} (${report.unique} distinct Message-IDs); outbox open ${state!.open}, sent ${state!.sent}, retried ${state!.multi}`)
  const cpuPerMail = `CPU per mail: senders ${((senderCpu * 1000) / N).toFixed(0)} µs, SMTP server ${((report.cpuMs * 1000) / N).toFixed(0)} µs`
  const load = loadavg()[0]!.toFixed(1)
  console.log(`${cpuPerMail}; load average ${loadavg().map((l) => l.toFixed(2)).join(' / ')}`)
  console.log(`| e-mail outbox of ${N} drained (${INSTANCES} instances) | ≥ 200 mails/s, each once | ${Math.round(rate).toLocaleString('en-US')} mails/s (${seconds.toFixed(1)} s; ${cpuPerMail}; load ${load})${once ? '' : ', NOT exactly once'} | ${rate >= 200 && once ? 'PASS' : 'FAIL'} |`)
} finally {
  await sql.end()
  const b = postgres(admin, { max: 1, onnotice: () => {} })
  await b.unsafe(`drop database if exists ${name} with (force)`)
  await b.end()
}
process.exit(0)
