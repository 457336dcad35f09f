import sanitizeHtml from 'sanitize-html'
import { resolveLocale } from '../../i18n/locale.ts'
import { renderText } from '../../i18n/messages.ts'
import { mailSubject, renderNotification } from '../notifications/texts.ts'
import type { OutboxItem } from './queries.ts'
import { unsubscribeToken } from './tokens.ts'

export interface MailSettings {
  publicUrl: string
  mailFrom: string
  secret: string
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

/** The Message-ID of a notification's mail: fixed, so a resend is recognisably the same mail. */
export const messageIdOf = (notificationId: string, publicUrl: string) => `<${notificationId}@${new URL(publicUrl).hostname || 'localhost'}>`

/**
 * One notification as a mail in its recipient's language: a subject naming the course, a
 * plain-text and an HTML part (built from escaped text only, then sanitised), a link to the
 * page, RFC 8058 one-click unsubscribe headers. The body's unsubscribe link opens a web page
 * that asks first (a mail scanner following links turns nothing off); the header targets the
 * POST route directly, as RFC 8058 wants.
 */
export function composeMail(item: OutboxItem, s: MailSettings, now: Date) {
  const locale = resolveLocale(item.locale, null)
  const text = renderNotification({ title: item.title, content: item.content }, item.params, locale, now)
  const link = s.publicUrl + (item.action_path ?? '/messages')
  const token = encodeURIComponent(unsubscribeToken(s.secret, item.user_id, item.notification_type))
  const oneClick = `${s.publicUrl}/api/v1/email/unsubscribe?token=${token}`
  const unsubscribe = `${s.publicUrl}/unsubscribe?token=${token}`
  const w = { open: renderText(locale, 'mailOpen'), why: renderText(locale, 'mailWhy'), unsubscribe: renderText(locale, 'mailUnsubscribe') }
  const plain = `${text.title}\n\n${text.content}\n\n${w.open}: ${link}\n\n-- \n${w.why}\n${w.unsubscribe}: ${unsubscribe}\n`
  const html = sanitizeHtml(
    `<h2>${escape(text.title)}</h2><p>${escape(text.content)}</p><p><a href="${escape(link)}">${escape(w.open)}</a></p>` +
      `<hr><p>${escape(w.why)} <a href="${escape(unsubscribe)}">${escape(w.unsubscribe)}</a></p>`,
    { allowedTags: ['h2', 'p', 'a', 'hr'], allowedAttributes: { a: ['href'] }, allowedSchemes: ['http', 'https'] },
  )
  return {
    from: s.mailFrom,
    to: item.email,
    subject: mailSubject(text, item.params, locale),
    text: plain,
    html: `<!doctype html><html lang="${locale}"><body>${html}</body></html>`,
    messageId: messageIdOf(item.notification_id, s.publicUrl),
    headers: {
      'List-Unsubscribe': `<${oneClick}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  }
}
