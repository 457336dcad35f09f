import { afterEach, describe, expect, test } from 'bun:test'
import { SMTPServer, type SMTPServerOptions } from 'smtp-server'
import type { MailMessage } from '../../src/infra/mime.ts'
import { smtpTransport, type SmtpOptions, type Transport } from '../../src/infra/smtp.ts'
import { isPermanent } from '../../src/modules/email/sender.ts'
import { freePort } from '../support/processes.ts'
import { decodeQp } from './smtp.ts'

/*
 * The SMTP transport (nodemailer's pool since issue 50; a pipelining client of our own before)
 * against the real `smtp-server`: many mails over few connections, each delivered once and intact
 * (dot-stuffing), a refused recipient failing only its own mail, a server without PIPELINING,
 * STARTTLS, SMTP_REQUIRE_TLS against a server that does not offer it, implicit TLS, logins, and a
 * connection the server closed while idle.
 */

interface Got {
  from: string
  to: string[]
  raw: string
  user?: string
}

let servers: SMTPServer[] = []
let pools: Transport[] = []

afterEach(async () => {
  for (const p of pools) p.close?.()
  await Promise.all(servers.map((s) => new Promise<void>((res) => s.close(() => res()))))
  servers = []
  pools = []
})

async function server(options: Partial<SMTPServerOptions> = {}) {
  const got: Got[] = []
  const connections = { count: 0 }
  const s = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    closeTimeout: 200,
    onConnect: (_session, cb) => (connections.count++, cb()),
    onRcptTo: (address, _session, cb) => {
      if (address.address.startsWith('refused')) return cb(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }))
      cb()
    },
    onData: (stream, session, cb) => {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        got.push({
          from: (session.envelope.mailFrom && session.envelope.mailFrom.address) || '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          user: session.user as string | undefined,
        })
        cb()
      })
    },
    ...options,
  })
  const port = await freePort()
  await new Promise<void>((res, rej) => {
    s.once('error', rej)
    s.listen(port, '127.0.0.1', () => res())
  })
  servers.push(s)
  return { got, port, connections }
}

function pool(url: string, options: SmtpOptions = {}) {
  const p = smtpTransport(url, options)
  pools.push(p)
  return p
}

const mail = (i: number, to = `student${i}@example.test`): MailMessage => ({
  from: 'Course Learning <no-reply@learn.example.test>',
  to,
  subject: `Mail ${i}`,
  // A line that starts with a dot must arrive as it was written (RFC 5321 dot-stuffing).
  text: `Line one of ${i}\n.hidden dot line\n..two dots\nend`,
  html: `<p>Mail ${i}</p>`,
  messageId: `<m${i}@learn.example.test>`,
  headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  date: new Date('2031-03-01T08:00:00.000Z'),
})

const messageId = (raw: string) => /^Message-ID:\s*(\S+)/im.exec(raw)?.[1]

async function sendAll(p: Transport, mails: MailMessage[]) {
  return Promise.allSettled(mails.map((m) => p.sendMail(m)))
}

describe('SMTP transport', () => {
  test('200 mails over 3 pooled connections: each delivered once, intact; a refused recipient fails only its own mail', async () => {
    const s = await server()
    const p = pool(`smtp://127.0.0.1:${s.port}`, { connections: 3 })
    const mails = Array.from({ length: 200 }, (_, i) => (i % 50 === 7 ? mail(i, `refused${i}@example.test`) : mail(i)))
    const results = await sendAll(p, mails)
    const refused = mails.filter((m) => m.to.startsWith('refused'))
    expect(refused).toHaveLength(4)
    results.forEach((r, i) => {
      if (mails[i]!.to.startsWith('refused')) {
        expect(r.status).toBe('rejected')
        const e = (r as PromiseRejectedResult).reason
        expect(e.responseCode).toBe(550)
        expect(isPermanent(e)).toBe(true)
      } else expect(r.status).toBe('fulfilled')
    })
    expect(s.got).toHaveLength(196)
    expect(new Set(s.got.map((g) => messageId(g.raw))).size).toBe(196)
    expect(s.connections.count).toBeLessThanOrEqual(3)
    const one = s.got.find((g) => messageId(g.raw) === '<m1@learn.example.test>')!
    expect(one.from).toBe('no-reply@learn.example.test')
    expect(one.to).toEqual(['student1@example.test'])
    expect(decodeQp(one.raw)).toContain('Line one of 1\r\n.hidden dot line\r\n..two dots\r\nend')
    expect(one.raw).toContain('Date: Sat, 01 Mar 2031 08:00:00 +0000')
  })

  test('a server without PIPELINING: same result', async () => {
    const s = await server({ hidePIPELINING: true })
    const p = pool(`smtp://127.0.0.1:${s.port}`, { connections: 2 })
    const mails = Array.from({ length: 30 }, (_, i) => (i === 11 ? mail(i, 'refused@example.test') : mail(i)))
    const results = await sendAll(p, mails)
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(29)
    expect((results[11] as PromiseRejectedResult).reason.responseCode).toBe(550)
    expect(s.got.map((g) => messageId(g.raw)).sort()).toEqual(mails.filter((_, i) => i !== 11).map((m) => m.messageId).sort())
    expect(decodeQp(s.got[0]!.raw)).toContain('\r\n.hidden dot line\r\n..two dots\r\n')
  })

  test('STARTTLS offered → the connection is upgraded before any mail; credentials in the URL log in (PLAIN, LOGIN)', async () => {
    for (const method of ['PLAIN', 'LOGIN']) {
      const secured: boolean[] = []
      const s = await server({
        disabledCommands: [],
        authOptional: false,
        authMethods: [method],
        onAuth: (auth, session, cb) => {
          secured.push(session.secure)
          if (auth.username === 'mailer' && auth.password === 'p@ss word') return cb(null, { user: `mailer/${auth.method}` })
          cb(Object.assign(new Error('Invalid credentials'), { responseCode: 535 }))
        },
      })
      // smtp-server's built-in certificate is self-signed: trusted explicitly here only.
      const p = pool(`smtp://mailer:${encodeURIComponent('p@ss word')}@127.0.0.1:${s.port}`, { connections: 2, tls: { rejectUnauthorized: false } })
      const results = await sendAll(p, Array.from({ length: 10 }, (_, i) => mail(i)))
      expect(results.every((r) => r.status === 'fulfilled')).toBe(true)
      expect(s.got).toHaveLength(10)
      expect(new Set(s.got.map((g) => g.user))).toEqual(new Set([`mailer/${method}`]))
      expect(secured.length).toBeGreaterThan(0)
      expect(secured.every(Boolean)).toBe(true)
    }
  })

  test('a refused login fails the mails retryably (its 535 is about the login, not the mail: retried later, not given up at once); a wrong certificate is refused', async () => {
    const s = await server({
      disabledCommands: ['STARTTLS'],
      authOptional: false,
      onAuth: (_auth, _session, cb) => cb(Object.assign(new Error('Invalid credentials'), { responseCode: 535 })),
    })
    const results = await sendAll(pool(`smtp://mailer:wrong@127.0.0.1:${s.port}`, { connections: 2 }), [mail(1), mail(2), mail(3)])
    for (const r of results) {
      expect(r.status).toBe('rejected')
      const e = (r as PromiseRejectedResult).reason
      expect(e.message).toContain('Invalid credentials')
      expect(isPermanent(e)).toBe(false)
    }
    expect(s.got).toHaveLength(0)

    const tls = await server({ disabledCommands: ['AUTH'] })
    const untrusted = await sendAll(pool(`smtp://127.0.0.1:${tls.port}`), [mail(4)])
    expect(untrusted[0]!.status).toBe('rejected')
    expect(tls.got).toHaveLength(0)
  })

  test('SMTP_REQUIRE_TLS: a server that does not offer STARTTLS gets nothing (no plaintext fallback); one that does gets the mail over TLS', async () => {
    const plain = await server({ disabledCommands: ['STARTTLS', 'AUTH'] })
    const refused = await sendAll(pool(`smtp://127.0.0.1:${plain.port}`, { requireTLS: true }), [mail(1)])
    expect(refused[0]!.status).toBe('rejected')
    expect(isPermanent((refused[0] as PromiseRejectedResult).reason)).toBe(false)
    expect(plain.got).toHaveLength(0)
    const secured: boolean[] = []
    const tls = await server({ disabledCommands: ['AUTH'], onMailFrom: (_a, session, cb) => (secured.push(session.secure), cb()) })
    const sent = await sendAll(pool(`smtp://127.0.0.1:${tls.port}`, { requireTLS: true, tls: { rejectUnauthorized: false } }), [mail(2)])
    expect(sent[0]!.status).toBe('fulfilled')
    expect(tls.got).toHaveLength(1)
    expect(secured).toEqual([true])
  })

  test('smtps:// is TLS from the first byte', async () => {
    const s = await server({ secure: true })
    const p = pool(`smtps://127.0.0.1:${s.port}`, { tls: { rejectUnauthorized: false } })
    const results = await sendAll(p, [mail(1), mail(2)])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled'])
    expect(s.got).toHaveLength(2)
  })

  test('an idle connection the server closed is replaced on the next mail; maxMessages opens a fresh connection', async () => {
    const s = await server({ socketTimeout: 300 })
    const p = pool(`smtp://127.0.0.1:${s.port}`, { connections: 1, maxMessages: 5 })
    expect((await sendAll(p, Array.from({ length: 12 }, (_, i) => mail(i)))).every((r) => r.status === 'fulfilled')).toBe(true)
    expect(s.got).toHaveLength(12)
    expect(s.connections.count).toBe(3)
    await Bun.sleep(800) // the scenario: idle past the server's 300 ms timeout, which closes the connection
    expect((await sendAll(p, [mail(100)]))[0]!.status).toBe('fulfilled')
    expect(s.got).toHaveLength(13)
    expect(s.connections.count).toBe(4)
  })

  test('no command or header injection: an address with a line break is refused for good, a subject with one stays one header', async () => {
    const s = await server()
    const p = pool(`smtp://127.0.0.1:${s.port}`)
    const bad = await sendAll(p, [mail(1, 'victim@example.test>\r\nRCPT TO:<other@example.test')])
    expect(bad[0]!.status).toBe('rejected')
    expect((bad[0] as PromiseRejectedResult).reason.responseCode).toBe(553)
    expect(isPermanent((bad[0] as PromiseRejectedResult).reason)).toBe(true)
    const ok = await sendAll(p, [{ ...mail(2), subject: 'Hi\r\nBcc: other@example.test\r\n\r\nbody' }])
    expect(ok[0]!.status).toBe('fulfilled')
    expect(s.got).toHaveLength(1)
    expect(s.got[0]!.to).toEqual(['student2@example.test'])
    const head = s.got[0]!.raw.split('\r\n\r\n')[0]!
    expect(head).toContain('Subject: Hi Bcc: other@example.test body')
    expect(head).not.toMatch(/^Bcc:/m)
  })

  test('nobody listening → every queued mail fails at once, retryable', async () => {
    const port = await freePort()
    const results = await sendAll(pool(`smtp://127.0.0.1:${port}`, { connections: 2 }), [mail(1), mail(2), mail(3)])
    for (const r of results) {
      expect(r.status).toBe('rejected')
      expect(isPermanent((r as PromiseRejectedResult).reason)).toBe(false)
    }
  })
})
