import sanitizeHtml from 'sanitize-html'
import { resolveLocale, type Locale } from '../../i18n/locale.ts'
import type { MailSettings } from './mail.ts'
import type { MailMessage } from './sender.ts'
import type { AccountMailKind, AccountOutboxItem } from './queries.ts'
import { unseal } from './sealed.ts'

/*
 * Mails about the account itself: verification, address change, password reset, and the notice
 * to the old address. Each is fixed text in the reader's language plus a link: none carries
 * text another user chose (no course titles, no names), because the first three go to an
 * address nobody has proved to own yet. A roster invitation goes to an address with no account
 * at all: it says only that a teacher here invited it, and links to registration.
 */
type Texts = { subject: string; lines: (p: Record<string, string>) => string[]; action?: string }

const TEXTS: Record<Locale, Record<AccountMailKind, Texts>> = {
  en: {
    VERIFY_EMAIL: {
      subject: 'Confirm your e-mail address',
      lines: (p) => [
        'An account at Course Learning was registered with this e-mail address.',
        `To confirm that this address is yours, open the link below within ${p.ttl}.`,
        'If you did not register, ignore this mail: the address stays unconfirmed and receives no notifications.',
      ],
      action: 'Confirm my e-mail address',
    },
    CHANGE_EMAIL: {
      subject: 'Confirm your new e-mail address',
      lines: (p) => [
        'A Course Learning account asked to use this e-mail address from now on.',
        `To confirm the change, open the link below within ${p.ttl}.`,
        'If you did not ask for this, ignore this mail: nothing changes.',
      ],
      action: 'Confirm the new address',
    },
    RESET_PASSWORD: {
      subject: 'Reset your password',
      lines: (p) => [
        'Someone asked to reset the password of the Course Learning account with this e-mail address.',
        `To choose a new password, open the link below within ${p.ttl}. It works once.`,
        'If you did not ask for this, ignore this mail: your password stays as it is.',
      ],
      action: 'Choose a new password',
    },
    EMAIL_CHANGED: {
      subject: 'Your e-mail address was changed',
      lines: (p) => [
        `The e-mail address of your Course Learning account was changed to ${p.newEmail}.`,
        'If you did not do this, reset your password at once and tell your school.',
      ],
    },
    ROSTER_INVITATION: {
      subject: 'You are invited to join a course',
      lines: () => [
        'A teacher at Course Learning added this e-mail address to the class list of a course.',
        'To join it, register a student account with this address and confirm the address: you are then enrolled in the course.',
        'If you do not know what this is about, ignore this mail: nothing happens without you.',
      ],
      action: 'Register',
    },
  },
  'zh-CN': {
    VERIFY_EMAIL: {
      subject: '请确认你的邮箱地址',
      lines: (p) => [
        '有人用这个邮箱地址在课程学习平台注册了账号。',
        `如果这是你的邮箱，请在 ${p.ttl}内打开下面的链接完成确认。`,
        '如果不是你注册的，请忽略本邮件：该地址不会被确认，也不会收到任何通知。',
      ],
      action: '确认我的邮箱地址',
    },
    CHANGE_EMAIL: {
      subject: '请确认你的新邮箱地址',
      lines: (p) => [
        '课程学习平台的一个账号请求今后使用这个邮箱地址。',
        `如需确认更改，请在 ${p.ttl}内打开下面的链接。`,
        '如果不是你发起的，请忽略本邮件：什么都不会改变。',
      ],
      action: '确认新邮箱地址',
    },
    RESET_PASSWORD: {
      subject: '重置你的密码',
      lines: (p) => [
        '有人请求重置使用此邮箱地址的课程学习平台账号的密码。',
        `如需设置新密码，请在 ${p.ttl}内打开下面的链接。链接只能使用一次。`,
        '如果不是你发起的，请忽略本邮件：你的密码不会改变。',
      ],
      action: '设置新密码',
    },
    EMAIL_CHANGED: {
      subject: '你的邮箱地址已更改',
      lines: (p) => [`你的课程学习平台账号的邮箱地址已更改为 ${p.newEmail}。`, '如果这不是你本人操作，请立即重置密码并联系学校。'],
    },
    ROSTER_INVITATION: {
      subject: '你被邀请加入一门课程',
      lines: () => [
        '课程学习平台的一位老师把这个邮箱地址加入了某门课程的学生名单。',
        '如需加入，请用这个邮箱地址注册学生账号并确认邮箱：确认后你会自动加入该课程。',
        '如果你不清楚这是怎么回事，请忽略本邮件：未经你的操作不会发生任何事情。',
      ],
      action: '注册',
    },
  },
}

/** "30 minutes", "24 hours" / "30 分钟", "24 小时". */
export function durationText(seconds: number, locale: Locale) {
  const hours = seconds % 3600 === 0 && seconds >= 3600 ? seconds / 3600 : null
  const minutes = Math.max(1, Math.round(seconds / 60))
  if (locale === 'zh-CN') return hours ? `${hours} 小时` : `${minutes} 分钟`
  return hours ? `${hours} hour${hours === 1 ? '' : 's'}` : `${minutes} minute${minutes === 1 ? '' : 's'}`
}

const PAGE: Partial<Record<AccountMailKind, string>> = {
  VERIFY_EMAIL: '/verify-email',
  CHANGE_EMAIL: '/verify-email',
  RESET_PASSWORD: '/reset-password',
}

export const linkOf = (publicUrl: string, kind: AccountMailKind, token: string) => `${publicUrl}${PAGE[kind]}?token=${token}`

/** The registration page with the invited address filled in (a roster invitation's link). */
export const registerLinkOf = (publicUrl: string, address: string) => `${publicUrl}/register?email=${encodeURIComponent(address)}`

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

/**
 * The mail of an account outbox row, or why it must not be sent: a verification or reset link
 * goes only to the address the account still has (an address change since makes it useless).
 */
export function composeAccountMail(item: AccountOutboxItem, s: MailSettings): { mail: MailMessage } | { skip: string } {
  const sameAddress = (item.email ?? '').toLowerCase() === item.to_address.toLowerCase()
  if ((item.kind === 'VERIFY_EMAIL' || item.kind === 'RESET_PASSWORD') && !sameAddress) return { skip: 'the account has another address now' }
  if (item.kind === 'ROSTER_INVITATION' && !item.still_invited) return { skip: 'the invitation was revoked or taken, or the address has an account now' }
  const locale = resolveLocale(item.locale ?? item.mail_locale, null)
  const t = TEXTS[locale][item.kind]
  const params = { ...(item.mail_params ?? {}) }
  if (params.ttlSeconds) params.ttl = durationText(Number(params.ttlSeconds), locale)
  let link: string | null = item.kind === 'ROSTER_INVITATION' ? registerLinkOf(s.publicUrl, item.to_address) : null
  if (PAGE[item.kind]) {
    const token = item.secret ? unseal(s.secret, item.secret) : null
    if (!token) return { skip: 'the link token is not readable' }
    link = linkOf(s.publicUrl, item.kind, token)
  }
  const lines = t.lines(params)
  const plain = `${lines.join('\n\n')}\n\n${link ? `${t.action}: ${link}\n` : ''}`
  const html = sanitizeHtml(lines.map((l) => `<p>${escape(l)}</p>`).join('') + (link ? `<p><a href="${escape(link)}">${escape(t.action!)}</a></p>` : ''), {
    allowedTags: ['p', 'a'],
    allowedAttributes: { a: ['href'] },
    allowedSchemes: ['http', 'https'],
  })
  return {
    mail: {
      from: s.mailFrom,
      to: item.to_address,
      subject: `${locale === 'zh-CN' ? '[课程学习]' : '[Course Learning]'} ${t.subject}`,
      text: plain,
      html: `<!doctype html><html lang="${locale}"><body>${html}</body></html>`,
      messageId: `<${item.id}@${new URL(s.publicUrl).hostname || 'localhost'}>`,
      headers: {},
    },
  }
}
