import ical, { ICalCalendarMethod } from 'ical-generator'
import type { Sql } from '../../db/connect.ts'
import { resolveLocale, type Locale } from '../../i18n/locale.ts'
import { renderText } from '../../i18n/messages.ts'
import * as q from './queries.ts'

export const FEED_PATH = '/calendar/'
const UID_DOMAIN = 'course-learning-service'
/** 32 random bytes, base64url: 256 bits, well over the contract's 128. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/

export const newToken = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')
export const isToken = (t: string) => TOKEN.test(t)

export const feedUrl = (base: string, token: string) => `${base.replace(/\/+$/, '')}${FEED_PATH}${token}.ics`

export async function myFeedUrl(sql: Sql, userId: string, base: string) {
  return { url: feedUrl(base, await q.feedToken(sql, userId, newToken())) }
}

export async function rotateFeed(sql: Sql, userId: string, base: string) {
  return { url: feedUrl(base, await q.rotateToken(sql, userId, newToken())) }
}

/** The feed's words, from the catalogue (src/i18n/messages, section `notification`). */
const wordsOf = (locale: Locale) => ({
  name: renderText(locale, 'calendarName'),
  homework: renderText(locale, 'calendarHomework'),
  experiment: renderText(locale, 'calendarExperiment'),
  summary: (course: string, title: string, kind: string) => renderText(locale, 'calendarSummary', { course, title, kind }),
})

export interface Feed {
  body: string
  etag: string
}

/**
 * The owner's feed as iCalendar text, or null for an unknown token. Deterministic for the same
 * data (DTSTAMP is the deadline's last change, not the time of the request), so the ETag
 * changes exactly when an event does.
 */
export async function renderFeed(sql: Sql, token: string, opts: { base: string; acceptLanguage?: string | null }): Promise<Feed | null> {
  if (!isToken(token)) return null
  const owner = await q.feedOwner(sql, token)
  if (!owner) return null
  const words = wordsOf(resolveLocale(owner.locale, opts.acceptLanguage))
  const base = opts.base.replace(/\/+$/, '')
  const cal = ical({
    name: words.name,
    prodId: { company: 'course-learning-service', product: 'deadlines', language: 'EN' },
    method: ICalCalendarMethod.PUBLISH,
    ttl: 60 * 15,
  })
  for (const d of await q.deadlines(sql, owner.user_id)) {
    const homework = d.kind === 'HOMEWORK'
    cal.createEvent({
      id: `${d.id}@${UID_DOMAIN}`,
      start: d.due_at,
      stamp: d.modified_at,
      lastModified: d.modified_at,
      sequence: d.sequence,
      summary: words.summary(d.course_title, d.title, homework ? words.homework : words.experiment),
      url: homework ? `${base}/courses/${d.course_id}?taskId=${d.id}` : `${base}/experiments/${d.id}?courseId=${d.course_id}`,
    })
  }
  const body = cal.toString()
  return { body, etag: `"${new Bun.CryptoHasher('sha256').update(body).digest('base64url')}"` }
}
