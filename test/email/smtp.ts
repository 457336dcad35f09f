import { SMTPServer } from 'smtp-server'
import { freePort } from '../support/processes.ts'

/** The raw message with quoted-printable undone (good enough to search text in tests). */
export function decodeQp(raw: string) {
  const bytes: number[] = []
  const flat = raw.replace(/=\r?\n/g, '')
  for (let i = 0; i < flat.length; i++) {
    const m = flat[i] === '=' && /^[0-9A-F]{2}$/.test(flat.slice(i + 1, i + 3))
    if (m) {
      bytes.push(parseInt(flat.slice(i + 1, i + 3), 16))
      i += 2
    } else bytes.push(...Buffer.from(flat[i]!, 'utf8'))
  }
  return Buffer.from(bytes).toString('utf8')
}

export interface Received {
  from: string
  to: string[]
  raw: string
  header(name: string): string | undefined
}

/**
 * A real SMTP server (the `smtp-server` package of the nodemailer project) for tests: records
 * what it receives; `refuse` makes it answer RCPT TO with a permanent 550; stop/start simulate
 * an outage on the same port.
 */
export class TestSmtp {
  received: Received[] = []
  attempts = 0
  /** Every RCPT TO address, in order. */
  rcpts: string[] = []
  refuse: ((to: string) => boolean) | null = null
  /** Answer RCPT TO with this temporary (4xx) code instead, e.g. 451. */
  tempFail: number | null = null
  /** Accept a mail's data only after this many milliseconds (a server that stalls, then accepts). */
  stallDataMs = 0
  private server: SMTPServer | null = null
  constructor(readonly port: number) {}

  static async start() {
    const s = new TestSmtp(await freePort())
    await s.start()
    return s
  }

  /** The environment of a service process on `databaseUrl` that sends its mail here, every second. */
  senderEnv(databaseUrl: string) {
    return {
      DATABASE_URL: databaseUrl,
      JWT_SECRET: 'two-instances-secret-0123456789abcdef',
      REMINDER_SCAN_CRON: 'off',
      SMTP_URL: this.url,
      PUBLIC_URL: 'https://learn.example.test',
      MAIL_SEND_CRON: '* * * * * *',
    }
  }

  get url() {
    return `smtp://127.0.0.1:${this.port}`
  }

  async start() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      // The sender keeps pooled connections open: an outage (stop) cuts them after 200 ms
      // instead of waiting 30 s for the clients to leave.
      closeTimeout: 200,
      onRcptTo: (address, _session, cb) => {
        this.attempts++
        this.rcpts.push(address.address)
        if (this.tempFail) {
          const e = new Error('Requested action aborted: local error in processing') as Error & { responseCode: number }
          e.responseCode = this.tempFail
          return cb(e)
        }
        if (this.refuse?.(address.address)) {
          const e = new Error('Mailbox unavailable') as Error & { responseCode: number }
          e.responseCode = 550
          return cb(e)
        }
        cb()
      },
      onData: (stream, session, cb) => {
        const chunks: Buffer[] = []
        stream.on('data', (c: Buffer) => chunks.push(c))
        stream.on('end', async () => {
          const raw = Buffer.concat(chunks).toString('utf8')
          const head = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ')
          this.received.push({
            from: (session.envelope.mailFrom && session.envelope.mailFrom.address) || '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            header: (name) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim(),
          })
          // The scenario: a server that has the mail but takes its time to say so.
          if (this.stallDataMs) await new Promise((r) => setTimeout(r, this.stallDataMs))
          cb()
        })
      },
    })
    await new Promise<void>((res, rej) => {
      this.server!.once('error', rej)
      this.server!.listen(this.port, '127.0.0.1', () => res())
    })
  }

  async stop() {
    const s = this.server
    this.server = null
    if (s) await new Promise<void>((res) => s.close(() => res()))
  }
}
