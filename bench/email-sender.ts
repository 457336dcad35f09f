/**
 * One "instance" of the e-mail sender for bench/probe-email.ts, in a process of its own: a pool
 * of PROBE_POOL connections and PROBE_SENDERS concurrent runs of sendDueEmails (from the tree
 * PROBE_ROOT, default this one) until the outbox has nothing due. Prints `SENT <n> CPU <ms>` (the process's CPU time).
 * Environment: DATABASE_URL, SMTP_URL, PROBE_CONNECTIONS (SMTP connections, 8).
 */
import { join } from 'node:path'
import postgres from 'postgres'

const root = process.env.PROBE_ROOT ?? join(import.meta.dir, '..')
const { sendDueEmails, smtpTransport } = await import(join(root, 'src/modules/email/sender.ts'))
const sql = postgres(process.env.DATABASE_URL!, { max: Number(process.env.PROBE_POOL ?? 10), onnotice: () => {} })
const transport = smtpTransport(process.env.SMTP_URL!, Number(process.env.PROBE_CONNECTIONS ?? 8))
const settings = { publicUrl: 'https://learn.example.test', mailFrom: 'Course Learning <no-reply@learn.example.test>', secret: 'probe-secret-probe-secret-0123456789' }
let sent = 0
await Promise.all(
  Array.from({ length: Number(process.env.PROBE_SENDERS ?? 2) }, async () => {
    for (;;) {
      const r = await sendDueEmails(sql, transport, settings, new Date())
      sent += r.sent
      if (r.sent + r.failed + r.retried === 0) break
    }
  }),
)
const cpu = process.cpuUsage()
console.log(`SENT ${sent} CPU ${Math.round((cpu.user + cpu.system) / 1000)}`)
transport.close?.()
await sql.end()
process.exit(0)
