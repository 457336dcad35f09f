import { describe, expect, test } from 'bun:test'
import { negotiateLocale } from '../../src/i18n/locale.ts'
import { testApp } from '../support/harness.ts'

/** Issue 27, finding 10: an entry whose q-value cannot be parsed is ignored, not taken as q=1. */
describe('Accept-Language with an unparsable q (issue 27.10)', () => {
  test.each([
    ['zh-CN;q=NaN, en;q=0.5', 'en'],
    ['zh-CN;q=-1, en;q=0.1', 'en'],
    ['zh-CN;q=1e309, en;q=0.2', 'en'],
    ['zh-CN;q=2, en;q=0.3', 'en'],
    ['zh-CN;q=0.5000, en;q=0.3', 'en'],
    ['zh-CN;q=, en;q=0.3', 'en'],
    ['zh-CN;q=0x1, en;q=0.3', 'en'],
    ['zh-CN;q=Infinity, en;q=0.3', 'en'],
    ['zh-CN;q=1.1, en;q=0.3', 'en'],
    ['en;q=NaN, zh', 'zh-CN'],
  ])('%p → %p', (header, expected) => {
    expect(negotiateLocale(header)).toBe(expected as 'en' | 'zh-CN')
  })

  test.each([
    ['zh-CN;q=0.9, en;q=0.8', 'zh-CN'],
    ['zh-CN;Q=0.9, en;q=0.8', 'zh-CN'],
    ['en;q=0.8, zh ; q=1.000', 'zh-CN'],
    ['zh;q=0.5', 'zh-CN'],
    ['zh;q=0, en', 'en'],
    ['zh;q=1, en;q=1', 'zh-CN'],
    ['fr, zh;q=0.1', 'zh-CN'],
  ])('valid q-values still rank: %p → %p', (header, expected) => {
    expect(negotiateLocale(header)).toBe(expected as 'en' | 'zh-CN')
  })

  test('over HTTP: an error envelope in English when the Chinese entry has q=NaN', async () => {
    const { api } = await testApp()
    const en = await api.get('/auth/me', { headers: { 'accept-language': 'en' } })
    const r = await api.get('/auth/me', { headers: { 'accept-language': 'zh-CN;q=NaN, en;q=0.5' } })
    expect([r.status, r.code]).toEqual([401, 40100])
    expect(r.message).toBe(en.message)
  })
})
