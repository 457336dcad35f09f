import { isIP, connect as netConnect, type Socket } from 'node:net'
import { hostname } from 'node:os'
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls'
import { toMime, type MailMessage } from './mime.ts'

/**
 * A pool of kept-open SMTP connections that pipelines (RFC 2920, issue 30.2): a mail costs one
 * write and one round trip on its connection — its body and the next mail's MAIL FROM, RCPT TO
 * and DATA go out together, the four replies come back together — instead of nodemailer's four
 * round trips and a MIME stream per mail. A server without PIPELINING gets one command at a
 * time. smtp:// upgrades with STARTTLS when the server offers it (as nodemailer did), smtps://
 * is TLS from the start; credentials in the URL log in with AUTH PLAIN or LOGIN.
 */

export interface SmtpError extends Error {
  /** The server's reply code; absent when the connection failed (worth a retry). */
  responseCode?: number
  response?: string
  /** The whole mail was sent and its reply never came: the server may have it. */
  afterData?: boolean
}

export interface SmtpPoolOptions {
  /** Connections at most (MAIL_CONNECTIONS). */
  connections?: number
  /** Mails per connection before it is closed and a fresh one opened. */
  maxMessages?: number
  connectionTimeoutMs?: number
  greetingTimeoutMs?: number
  /** No reply for this long while one is awaited: the connection is given up. */
  socketTimeoutMs?: number
  /**
   * The reply to the end of a mail's data is awaited this long instead (RFC 5321 4.5.3.2.6 asks
   * for minutes: the server may be delivering). Giving up earlier is what sends a mail twice: the
   * server that accepted it late has it, and the retry sends it again.
   */
  dataTimeoutMs?: number
  /** TLS options (a private CA for instance). */
  tls?: ConnectionOptions
}

interface Job {
  from: string
  to: string
  raw: string
  utf8: boolean
  resolve: () => void
  reject: (e: SmtpError) => void
}

interface Reply {
  code: number
  text: string
}

function smtpError(message: string, reply?: Reply): SmtpError {
  const e = new Error(reply ? `${message}: ${reply.text}` : message) as SmtpError
  if (reply) {
    e.responseCode = reply.code
    e.response = reply.text
  }
  return e
}

/** Dot-stuffing (RFC 5321 4.5.2) and the end-of-data line. */
const dataOf = (raw: string) => (raw.startsWith('.') ? '.' : '') + raw.replace(/\r\n\./g, '\r\n..') + (raw.endsWith('\r\n') ? '' : '\r\n') + '.\r\n'

const envelopeOf = (j: Job, caps: Set<string>) =>
  `MAIL FROM:<${j.from}>${j.utf8 && caps.has('SMTPUTF8') ? ' SMTPUTF8' : ''}${caps.has('8BITMIME') ? ' BODY=8BITMIME' : ''}\r\nRCPT TO:<${j.to}>\r\nDATA\r\n`

class Connection {
  private socket: Socket | TLSSocket | null = null
  private buffer = ''
  private lines: string[] = []
  private waiting: ((r: Reply) => void)[] = []
  private early: Reply[] = []
  private failed: SmtpError | null = null
  private onFail: ((e: SmtpError) => void)[] = []
  caps = new Set<string>()
  sent = 0
  busy = false
  closed = false
  /** Greeted, upgraded and logged in. */
  ready = false
  /** Set by the pool: called once when the connection fails or closes. */
  onGone: (() => void) | null = null
  /** Set by the pool: takes the connection out of its count (idempotent). */
  drop: () => void = () => {}

  constructor(
    private readonly url: URL,
    private readonly opts: Required<Omit<SmtpPoolOptions, 'tls'>> & { tls?: ConnectionOptions },
  ) {}

  /** The next reply (multi-line replies joined), or the connection's failure. */
  private reply(timeoutMs = this.opts.socketTimeoutMs): Promise<Reply> {
    // A pipelined reply can arrive before it is awaited.
    const early = this.early.shift()
    if (early) return Promise.resolve(early)
    if (this.failed) return Promise.reject(this.failed)
    return new Promise((resolve, reject) => {
      if (!this.waiting.length) this.socket?.setTimeout(timeoutMs)
      this.waiting.push(resolve)
      this.onFail.push(reject)
    })
  }

  private replies3() {
    return Promise.all([this.reply(), this.reply(), this.reply()])
  }

  private onData = (chunk: Buffer | string) => {
    this.buffer += typeof chunk === 'string' ? chunk : chunk.toString('utf8')
    let at: number
    while ((at = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, at).replace(/\r$/, '')
      this.buffer = this.buffer.slice(at + 1)
      this.lines.push(line)
      if (line.length >= 4 && line[3] === '-') continue
      const text = this.lines.join('\n')
      this.lines = []
      const reply = { code: Number(line.slice(0, 3)) || 0, text }
      const resolve = this.waiting.shift()
      this.onFail.shift()
      if (!this.waiting.length) this.socket?.setTimeout(0)
      if (resolve) resolve(reply)
      // A reply nobody asked for on an idle connection: the server is closing it (421).
      else if (this.ready && !this.busy) this.fail(smtpError('SMTP server closed the connection', reply))
      else this.early.push(reply)
    }
  }

  private fail = (e: SmtpError) => {
    if (this.failed) return
    this.failed = e
    this.closed = true
    const rejects = this.onFail
    this.waiting = []
    this.onFail = []
    for (const r of rejects) r(e)
    this.socket?.destroy()
    this.onGone?.()
  }

  private attach(socket: Socket | TLSSocket) {
    this.socket = socket
    socket.on('data', this.onData)
    socket.on('error', (e: Error) => this.fail(smtpError(`SMTP connection: ${e.message}`)))
    socket.on('close', () => this.fail(smtpError('SMTP connection closed')))
    socket.on('timeout', () => this.fail(smtpError('SMTP server did not answer in time')))
  }

  private write(s: string) {
    if (this.failed) throw this.failed
    this.socket!.write(s)
  }

  private async command(line: string, expect: number) {
    this.write(line + '\r\n')
    const r = await this.reply()
    if (Math.floor(r.code / 100) !== expect) throw smtpError(`SMTP ${line.split(' ')[0]} refused`, r)
    return r
  }

  private async ehlo() {
    const name = hostname() || 'localhost'
    this.write(`EHLO ${name}\r\n`)
    const r = await this.reply()
    if (r.code !== 250) {
      await this.command(`HELO ${name}`, 2)
      this.caps = new Set()
      return
    }
    this.caps = new Set(
      r.text
        .split('\n')
        .slice(1)
        .map((l) => l.slice(4).trim().toUpperCase()),
    )
  }

  private cap(name: string) {
    for (const c of this.caps) if (c === name || c.startsWith(name + ' ')) return c
    return null
  }

  /** Connects, greets, upgrades to TLS, logs in. */
  async open() {
    const secure = this.url.protocol === 'smtps:'
    const host = this.url.hostname.replace(/^\[(.*)\]$/, '$1')
    const port = Number(this.url.port) || (secure ? 465 : 25)
    // The name the certificate must carry (SNI takes no IP address; the IP is checked then).
    const sni = isIP(host) ? {} : { servername: host }
    const socket = await new Promise<Socket | TLSSocket>((resolve, reject) => {
      const timer = setTimeout(() => {
        s.destroy()
        reject(smtpError('SMTP connection timed out'))
      }, this.opts.connectionTimeoutMs)
      const done = () => {
        clearTimeout(timer)
        s.off('error', failed)
        resolve(s)
      }
      const failed = (e: Error) => {
        clearTimeout(timer)
        reject(smtpError(`SMTP connection: ${e.message}`))
      }
      const s = secure ? tlsConnect({ ...this.opts.tls, host, port, ...sni }, done) : netConnect({ host, port }, done)
      s.once('error', failed)
    })
    socket.setNoDelay(true)
    this.attach(socket)
    const greeting = await Promise.race([
      this.reply(),
      new Promise<never>((_, reject) => setTimeout(() => reject(smtpError('SMTP greeting timed out')), this.opts.greetingTimeoutMs).unref?.()),
    ]).catch((e: SmtpError) => (this.fail(e), Promise.reject(e)))
    if (greeting.code !== 220) throw (this.fail(smtpError('SMTP greeting refused', greeting)), this.failed!)
    await this.ehlo()
    if (!secure && this.cap('STARTTLS')) {
      await this.command('STARTTLS', 2)
      const plain = this.socket as Socket
      plain.removeAllListeners('data')
      plain.removeAllListeners('close')
      plain.removeAllListeners('error')
      plain.removeAllListeners('timeout')
      const upgraded = await new Promise<TLSSocket>((resolve, reject) => {
        const t = tlsConnect({ ...this.opts.tls, socket: plain, ...sni }, () => resolve(t))
        t.once('error', (e) => reject(smtpError(`SMTP STARTTLS: ${e.message}`)))
      })
      this.attach(upgraded)
      await this.ehlo()
    }
    const user = decodeURIComponent(this.url.username)
    if (user) {
      const pass = decodeURIComponent(this.url.password)
      const auth = this.cap('AUTH') ?? ''
      if (/\bPLAIN\b/.test(auth) || !/\bLOGIN\b/.test(auth)) {
        await this.command(`AUTH PLAIN ${Buffer.from(`\0${user}\0${pass}`).toString('base64')}`, 2)
      } else {
        await this.command('AUTH LOGIN', 3)
        await this.command(Buffer.from(user).toString('base64'), 3)
        await this.command(Buffer.from(pass).toString('base64'), 2)
      }
    }
    this.ready = true
  }

  /**
   * Sends `take()`'s mails until it has none or maxMessages is reached, pipelined when the
   * server allows: one write per mail (its body + the next mail's envelope), one round trip.
   */
  async run(take: () => Job | undefined) {
    const pipelining = this.caps.has('PIPELINING')
    const more = () => (this.sent < this.opts.maxMessages ? take() : undefined)
    let job = more()
    let envelopeSent = false
    while (job) {
      const current = job
      let next: Job | undefined
      try {
        let mail: Reply, rcpt: Reply, data: Reply
        if (pipelining) {
          if (!envelopeSent) this.write(envelopeOf(current, this.caps))
          ;[mail, rcpt, data] = await this.replies3()
        } else {
          const [m, r, d] = envelopeOf(current, this.caps).split('\r\n')
          this.write(m + '\r\n')
          mail = await this.reply()
          rcpt = mail.code === 250 ? (this.write(r + '\r\n'), await this.reply()) : mail
          data = rcpt.code === 250 || rcpt.code === 251 ? (this.write(d + '\r\n'), await this.reply()) : rcpt
        }
        this.sent++
        const refused = mail.code !== 250 ? smtpError('SMTP MAIL FROM refused', mail) : Math.floor(rcpt.code / 100) !== 2 ? smtpError('SMTP RCPT TO refused', rcpt) : null
        if (data.code !== 354) {
          this.write('RSET\r\n')
          await this.reply()
          current.reject(refused ?? smtpError('SMTP DATA refused', data))
          envelopeSent = false
          job = more()
          continue
        }
        next = pipelining ? more() : undefined
        // DATA accepted although the recipient was refused (a lax server): an empty message ends it.
        this.write((refused ? '.\r\n' : dataOf(current.raw)) + (next ? envelopeOf(next, this.caps) : ''))
        const done = await this.reply(this.opts.dataTimeoutMs).catch((e: SmtpError) => {
          if (refused) throw e
          const unsure = smtpError(`${e.message} (after the whole mail was sent: the server may have it)`) as SmtpError
          unsure.afterData = true
          current.reject(unsure)
          throw e
        })
        if (refused) current.reject(refused)
        else if (done.code === 250) current.resolve()
        else current.reject(smtpError('SMTP message refused', done))
        envelopeSent = next !== undefined
        job = next ?? more()
      } catch (e) {
        current.reject(e as SmtpError)
        // The next mail's envelope was on the wire too: it failed the same way.
        next?.reject(e as SmtpError)
        throw e
      }
    }
  }

  quit() {
    if (this.closed) return
    this.closed = true
    try {
      this.socket?.end('QUIT\r\n')
    } catch {
      this.socket?.destroy()
    }
  }

  destroy() {
    this.closed = true
    this.socket?.destroy()
  }
}

export class SmtpPool {
  private readonly url: URL
  private readonly opts: Required<Omit<SmtpPoolOptions, 'tls'>> & { tls?: ConnectionOptions }
  private queue: Job[] = []
  private head = 0
  private idle: Connection[] = []
  private open = 0
  private closedPool = false

  constructor(url: string, options: SmtpPoolOptions = {}) {
    this.url = new URL(url)
    if (this.url.protocol !== 'smtp:' && this.url.protocol !== 'smtps:') throw new Error(`SMTP_URL must be smtp:// or smtps://, not ${this.url.protocol}`)
    this.opts = {
      connections: options.connections ?? 8,
      maxMessages: options.maxMessages ?? 1000,
      connectionTimeoutMs: options.connectionTimeoutMs ?? 10_000,
      greetingTimeoutMs: options.greetingTimeoutMs ?? 10_000,
      socketTimeoutMs: options.socketTimeoutMs ?? 30_000,
      dataTimeoutMs: options.dataTimeoutMs ?? Math.max(options.socketTimeoutMs ?? 30_000, 60_000),
      tls: options.tls,
    }
  }

  /** Resolves once the server accepted the mail; rejects with its reply code, if it gave one. */
  sendMail(message: MailMessage): Promise<void> {
    if (this.closedPool) return Promise.reject(smtpError('SMTP pool closed'))
    const { from, to, raw } = toMime(message)
    // An address that would break the command line it is written into is never sent.
    if (/[\s<>]/.test(from + to) || !to) return Promise.reject(Object.assign(smtpError(`invalid address: ${JSON.stringify(to)}`), { responseCode: 553 }))
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ from, to, raw, utf8: /[^\x00-\x7f]/.test(from + to), resolve, reject })
      this.pump()
    })
  }

  private take = (): Job | undefined => {
    if (this.head >= this.queue.length) return undefined
    const j = this.queue[this.head++]
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head)
      this.head = 0
    }
    return j
  }

  private get pending() {
    return this.queue.length - this.head
  }

  private pump() {
    while (this.pending > 0 && this.idle.length) this.work(this.idle.pop()!)
    while (this.pending > 0 && this.open < this.opts.connections) this.start()
  }

  private start() {
    this.open++
    const c = new Connection(this.url, this.opts)
    let gone = false
    /** Once per connection: it no longer counts, whatever ended it. */
    const drop = () => {
      if (gone) return
      gone = true
      this.open--
      this.idle = this.idle.filter((x) => x !== c)
    }
    c.drop = drop
    c.onGone = () => {
      // An idle connection the server closed: just forget it (a busy one ends in work()).
      if (!c.busy) drop()
    }
    c.open().then(
      () => this.work(c),
      (e: SmtpError) => {
        drop()
        c.destroy()
        // Nobody else can send them: the queued mails fail, without the reply code (a refused
        // login or greeting says nothing about the mail: retried later, never given up at once).
        if (this.open === 0) {
          const err = smtpError(e.message)
          while (this.pending > 0) this.take()!.reject(err)
        }
      },
    )
  }

  private work(c: Connection) {
    if (c.busy) return
    c.busy = true
    c.run(this.take).then(
      () => {
        c.busy = false
        if (c.closed || c.sent >= this.opts.maxMessages || this.closedPool) {
          c.drop()
          c.quit()
        } else this.idle.push(c)
        this.pump()
      },
      () => {
        c.busy = false
        c.drop()
        c.destroy()
        this.pump()
      },
    )
  }

  /** Idle connections say QUIT; the pool sends nothing more. */
  close() {
    this.closedPool = true
    for (const c of this.idle) c.quit()
    this.idle = []
  }
}
