import { randomBytes } from 'node:crypto'
import { domainToASCII } from 'node:url'
import { encodeWords } from 'nodemailer/lib/mime-funcs'
import { encode as qpEncode, wrap as qpWrap } from 'nodemailer/lib/qp'

/** What a mail says; the SMTP transport (smtp.ts) sends it as the one MIME message toMime builds. */
export interface MailMessage {
  from: string
  to: string
  subject: string
  text: string
  html: string
  messageId: string
  headers: Record<string, string>
  /** The Date header (default: when it is built). */
  date?: Date
}

/** An addr-spec with its domain in ASCII (IDNA), as the envelope and the header carry it. */
export function asciiAddress(address: string) {
  const at = address.lastIndexOf('@')
  if (at < 0) return address
  const domain = address.slice(at + 1)
  return /^[\x20-\x7e]*$/.test(domain) ? address : address.slice(0, at + 1) + (domainToASCII(domain) || domain)
}

/** `Name <addr>` or `addr` → its parts (a configured MAIL_FROM, an account's address). */
export function parseMailbox(value: string): { name: string; address: string } {
  const m = /^\s*(.*?)\s*<([^<>]+)>\s*$/.exec(value)
  if (!m) return { name: '', address: value.trim() }
  return { name: m[1]!.replace(/^"(.*)"$/, '$1'), address: m[2]!.trim() }
}

/** Header text: line breaks (a title someone typed) never start a header of their own. */
const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ')

/**
 * Latin letters outnumber 8-bit and control characters → quoted-printable, else base64: the
 * choice nodemailer made for the same text (mail readers and the tests saw these encodings).
 */
function textEncoding(value: string): 'Q' | 'B' {
  let nonLatin = 0
  let latin = 0
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if ((c <= 0x08) || c === 0x0b || c === 0x0c || (c >= 0x0e && c <= 0x1f) || c >= 0x80) nonLatin++
    else if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) latin++
  }
  return nonLatin < latin ? 'Q' : 'B'
}

/** An unstructured header value: as is when printable ASCII, else RFC 2047 encoded words. */
function headerText(value: string) {
  const v = oneLine(value)
  if (/^[\x20-\x7e]*$/.test(v) && !v.includes('=?')) return v
  return encodeWords(v, textEncoding(v), 52, true)
}

function mailbox(value: string) {
  const { name, address } = parseMailbox(oneLine(value))
  if (!name) return asciiAddress(address)
  const display = /^[\x20-\x7e]*$/.test(name) ? (/^[\w !#$%&'*+\-/=?^`{|}~]*$/.test(name) ? name : JSON.stringify(name)) : headerText(name)
  return `${display} <${asciiAddress(address)}>`
}

/** Folds a long header line at spaces (RFC 5322: 78 characters recommended, 998 at most). */
function fold(line: string) {
  if (line.length <= 78) return line
  let out = ''
  let rest = line
  while (rest.length > 78) {
    const at = rest.lastIndexOf(' ', 78)
    if (at <= 0) break
    out += rest.slice(0, at) + '\r\n'
    rest = rest.slice(at)
  }
  return out + rest
}

function base64Lines(text: string) {
  const b = Buffer.from(text, 'utf8').toString('base64')
  let out = ''
  for (let i = 0; i < b.length; i += 76) out += (i ? '\r\n' : '') + b.slice(i, i + 76)
  return out
}

function part(type: string, content: string) {
  const crlf = content.replace(/\r\n|\r|\n/g, '\r\n')
  return textEncoding(crlf) === 'Q'
    ? `Content-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n${qpWrap(qpEncode(crlf), 76)}`
    : `Content-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64Lines(crlf)}`
}

/** RFC 5322 date: `Thu, 26 Nov 2026 18:48:26 +0000`. */
const rfc5322Date = (d: Date) => d.toUTCString().replace(/GMT$/, '+0000')

/**
 * The whole message (headers, a text/plain and a text/html alternative), built as one string:
 * no per-mail stream or address parser (issue 30.2: nodemailer's composer was most of the
 * sender's CPU per mail). Returns the envelope beside it.
 */
export function toMime(m: MailMessage, now = new Date()): { from: string; to: string; raw: string } {
  const boundary = `--_cls_${randomBytes(12).toString('hex')}`
  const head = [
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    `From: ${mailbox(m.from)}`,
    `To: ${mailbox(m.to)}`,
    fold(`Subject: ${headerText(m.subject)}`),
    `Message-ID: ${oneLine(m.messageId)}`,
    `Date: ${rfc5322Date(m.date ?? now)}`,
    'MIME-Version: 1.0',
    ...Object.entries(m.headers).map(([k, v]) => `${k}: ${oneLine(v)}`),
  ].join('\r\n')
  const raw =
    `${head}\r\n\r\n--${boundary}\r\n${part('text/plain', m.text)}\r\n--${boundary}\r\n${part('text/html', m.html)}\r\n--${boundary}--\r\n`
  return { from: asciiAddress(parseMailbox(m.from).address), to: asciiAddress(parseMailbox(m.to).address), raw }
}
