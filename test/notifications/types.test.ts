import { describe, expect, test } from 'bun:test'
import en from '../../src/i18n/messages/en.ts'
import zh from '../../src/i18n/messages/zh-CN.ts'
import { renderNotification } from '../../src/modules/notifications/texts.ts'
import {
  NOTIFICATION_TYPES,
  SHARED_TEXT_KEYS,
  TYPE_NAMES,
  typeDef,
  type NotificationParams,
  type Text,
  type TextKey,
} from '../../src/modules/notifications/types.ts'
import { CHANNELS } from '../../src/services/channels.ts'
import webMessagesEn from '../../src/web/client/i18n/messages/en/messages.ts'
import webSettingsEn from '../../src/web/client/i18n/messages/en/settings.ts'
import webUnsubscribeEn from '../../src/web/client/i18n/messages/en/unsubscribe.ts'
import webMessagesZh from '../../src/web/client/i18n/messages/zh-CN/messages.ts'
import webSettingsZh from '../../src/web/client/i18n/messages/zh-CN/settings.ts'
import webUnsubscribeZh from '../../src/web/client/i18n/messages/zh-CN/unsubscribe.ts'

/*
 * Issue 50: one record per notification type (types.ts) — its params, channel defaults, link,
 * catalogue keys and rendering. Adding a type is a record plus its wording in en and zh-CN; these
 * checks say what a record that lacks a part is missing.
 */

const SPANS: readonly TextKey[] = ['spanDay', 'spanDays', 'spanHour', 'spanHours', 'spanMinute', 'spanMinutes']
/** Long before, exactly at and after a deadline: every branch of a reminder's wording. */
const NOWS = ['2000-01-01T00:00:00.000Z', '2026-03-08T12:00:00.000Z', '2026-03-10T11:00:00.000Z', '2026-03-10T12:00:00.000Z', '2026-03-11T00:00:00.000Z'].map((s) => new Date(s))

/** Renders with a catalogue that records the keys asked for. */
function used(params: NotificationParams, now: Date) {
  const keys = new Set<TextKey>()
  const t: Text = (key, vars) => {
    keys.add(key)
    return `${key}(${JSON.stringify(vars ?? {})})`
  }
  typeDef(params.kind).render(params, t, now)
  return keys
}

describe('notification type records', () => {
  test.each(TYPE_NAMES)('%s has every part', (type) => {
    const d = typeDef(type)
    // Defaults: a boolean for channels it names, each a channel of the service.
    expect(Object.keys(d.defaults).length).toBeGreaterThan(0)
    for (const [channel, on] of Object.entries(d.defaults)) {
      expect(CHANNELS.map((c) => c.name)).toContain(channel)
      expect(typeof on).toBe('boolean')
    }
    expect(typeof d.link).toBe('function')
    expect(typeof d.render).toBe('function')
    expect(Array.isArray(d.texts)).toBe(true)
    expect(d.examples.length).toBeGreaterThan(0)
    for (const e of d.examples) expect(e.params.kind).toBe(type)
  })

  test.each(TYPE_NAMES)('%s: its catalogue keys are in en and zh-CN, and are exactly the ones its wording uses', (type) => {
    const d = typeDef(type)
    for (const key of d.texts) {
      expect(en.notification[key]).toBeString()
      expect(zh.notification[key]).toBeString()
      expect(zh.notification[key].length).toBeGreaterThan(0)
    }
    const seen = new Set<TextKey>()
    for (const e of d.examples) for (const now of NOWS) for (const k of used(e.params, now)) seen.add(k)
    const own = [...seen].filter((k) => !SPANS.includes(k))
    expect(own.sort()).toEqual([...d.texts].sort())
  })

  test.each(TYPE_NAMES)('%s renders its examples in en and zh-CN with every placeholder filled', (type) => {
    for (const e of typeDef(type).examples) {
      for (const locale of ['en', 'zh-CN'] as const) {
        for (const now of NOWS) {
          const text = renderNotification({ title: 'stored', content: 'stored' }, e.params, locale, now)
          expect(text.title.length).toBeGreaterThan(0)
          expect(text.title).not.toBe('stored')
          expect(`${text.title} ${text.content}`).not.toContain('{{')
          expect(`${text.title} ${text.content}`).not.toContain('undefined')
        }
      }
    }
  })

  test('every key of the catalogue section `notification` belongs to one type or is shared, in both languages', () => {
    const owners = new Map<string, string[]>()
    for (const type of TYPE_NAMES) for (const k of typeDef(type).texts) owners.set(k, [...(owners.get(k) ?? []), type])
    for (const k of SHARED_TEXT_KEYS) owners.set(k, [...(owners.get(k) ?? []), 'shared'])
    expect(Object.keys(en.notification).filter((k) => !owners.has(k))).toEqual([])
    expect([...owners].filter(([, o]) => o.length > 1)).toEqual([])
    expect(Object.keys(zh.notification).sort()).toEqual(Object.keys(en.notification).sort())
  })

  test('the links of the examples (the paths the web app opens)', () => {
    const links = Object.fromEntries(TYPE_NAMES.map((type) => [type, typeDef(type).examples.map((e) => typeDef(type).link(e.params, e.to))]))
    expect(links).toEqual({
      HOMEWORK_REMINDER: ['/courses/c1?taskId=t1', '/courses/c1?taskId=t1', '/courses/c1?taskId=t1'],
      SUBMISSION_GRADED: ['/courses/c1?taskId=t1', '/experiments/e1?courseId=c1'],
      ANNOUNCEMENT: ['/courses/c1'],
      SUBMISSION_RECEIVED: ['/courses/c1?taskId=t1', '/courses/c1/manage?tab=grading&experimentId=t1&student=u1', '/courses/c1?taskId=t1'],
      COMMENT_REPLY: ['/courses/c1?announcementId=a1', '/courses/c1?taskId=t1'],
      PRIVATE_COMMENT: ['/courses/c1/manage?tab=grading&taskId=t1&student=u1', '/courses/c1?taskId=t1'],
    })
  })

  test('the wording is unchanged by the move into records (en and zh-CN samples)', () => {
    const [task, experiment] = NOTIFICATION_TYPES.SUBMISSION_GRADED.examples
    const now = new Date('2026-03-01T12:00:00.000Z')
    expect(renderNotification({ title: '', content: '' }, experiment!.params, 'en', now)).toEqual({
      title: `Experiment graded: Titration`,
      content: 'Your submission "report.pdf" for Titration received 75/100.',
    })
    expect(renderNotification({ title: '', content: '' }, task!.params, 'en', now)).toEqual({
      title: 'Graded: Essay 3',
      content: 'Your answer sheet for "Essay 3" in Biology was graded: 90/100.',
    })
    const start = NOTIFICATION_TYPES.HOMEWORK_REMINDER.examples[0]!.params
    expect(renderNotification({ title: '', content: '' }, start, 'en', now).content).toBe('"Essay 3" in Biology is open. It is due in 9 days.')
    const digest = NOTIFICATION_TYPES.SUBMISSION_RECEIVED.examples[2]!.params
    expect(renderNotification({ title: '', content: '' }, digest, 'zh-CN', now).title).toBe(
      zh.notification.submittedDigestTitle.replace('{{count}}', '12').replace('{{title}}', 'Essay 3'),
    )
    // An unknown kind (or a row without params) keeps its stored text.
    expect(renderNotification({ title: 'old', content: 'text' }, { kind: 'GONE' } as unknown as NotificationParams, 'en', now)).toEqual({ title: 'old', content: 'text' })
    expect(renderNotification({ title: 'old', content: 'text' }, null, 'en', now)).toEqual({ title: 'old', content: 'text' })
  })

  test("the web app names every type, and only those, in both languages (inbox badge, Settings, unsubscribe page)", () => {
    const lists = {
      'en messages.type': webMessagesEn.type,
      'zh-CN messages.type': webMessagesZh.type,
      'en settings.types': webSettingsEn.types,
      'zh-CN settings.types': webSettingsZh.types,
      'en unsubscribe.types': webUnsubscribeEn.types,
      'zh-CN unsubscribe.types': webUnsubscribeZh.types,
    }
    for (const [name, list] of Object.entries(lists)) expect([name, Object.keys(list).sort()]).toEqual([name, [...TYPE_NAMES].sort()])
  })
})
