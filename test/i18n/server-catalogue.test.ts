import { describe, expect, test } from 'bun:test'
import { readdir } from 'node:fs/promises'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { findMessage, localizeText, renderMessage } from '../../src/i18n/messages.ts'
import en from '../../src/i18n/messages/en.ts'
import zh from '../../src/i18n/messages/zh-CN.ts'

/**
 * Every sentence the service writes for a person is in its message catalogue
 * (src/i18n/messages/<locale>.ts), in English and Simplified Chinese with the same keys and the
 * same placeholders. A text thrown in code or written into a schema that the catalogue does not
 * know fails here with its file:line.
 */
const SRC = join(import.meta.dir, '..', '..', 'src')

async function files(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) {
      if (!['web', 'i18n', 'docs'].includes(e.name)) out.push(...(await files(p)))
    } else if (e.name === 'config.ts') {
      // operator-facing (startup), not read by users
    } else if (e.name.endsWith('.ts')) out.push(p)
  }
  return out
}

/** Error helpers and which argument carries the message. */
const MESSAGE_ARG: Record<string, number> = {
  forbidden: 0,
  unauthenticated: 0,
  badRequest: 0,
  notFound: 1,
  conflict: 1,
  invalidField: 1,
  envelopeOf: 1,
  resourceNotFound: 0,
  issue: 1,
}
/** zod checks whose second argument is the message. */
const ZOD_CHECKS = new Set(['min', 'max', 'regex', 'gt', 'gte', 'lt', 'lte', 'int', 'length', 'email', 'refine', 'enum', 'file', 'guid', 'uuid', 'datetime'])

/** The text of a literal; a template's `${…}` become a sample value. */
function textOf(n: ts.Node): string | null {
  if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return n.text
  if (ts.isTemplateExpression(n)) return n.head.text + n.templateSpans.map((s) => '7' + s.literal.text).join('')
  return null
}

function messagesIn(source: string, fileName: string): { where: string; text: string }[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true)
  const out: { where: string; text: string }[] = []
  const add = (n: ts.Node) => {
    const text = textOf(n)
    if (text !== null && /[a-z]{2}/i.test(text)) out.push({ where: `${fileName}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`, text })
  }
  const visit = (n: ts.Node) => {
    if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
      const callee = n.expression.getText()
      const name = callee.split('.').pop()!
      const args = n.arguments ?? ts.factory.createNodeArray()
      if (ts.isNewExpression(n) && callee === 'AppError' && args[1]) add(args[1])
      else if (name in MESSAGE_ARG && !callee.includes('.') && args[MESSAGE_ARG[name]!]) add(args[MESSAGE_ARG[name]!]!)
      else if ((ZOD_CHECKS.has(name) && callee.includes('.')) || /^z\.(file|int|email|guid|enum)$/.test(callee)) {
        // `.min(3, 'must be 3-32 characters')`: a literal after the first argument is a message;
        // `z.int('must be whole numbers')`: for z.* constructors the first one is too.
        for (const a of args) if (textOf(a) !== null && (a !== args[0] || callee.startsWith('z.'))) add(a)
      }
    }
    if (ts.isPropertyAssignment(n) && n.name.getText() === 'message') add(n.initializer)
    ts.forEachChild(n, visit)
  }
  visit(sf)
  return out
}

describe('server message catalogue', () => {
  test('English and Chinese have the same sections, keys and placeholders; no Chinese entry is empty', () => {
    const placeholders = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort()
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort())
    for (const section of Object.keys(en) as (keyof typeof en)[]) {
      expect(Object.keys(zh[section]).sort()).toEqual(Object.keys(en[section]).sort())
      for (const [key, text] of Object.entries(en[section])) {
        const other = (zh[section] as Record<string, string>)[key]!
        expect({ section, key, ph: placeholders(other) }).toEqual({ section, key, ph: placeholders(text) })
        expect(other.trim().length).toBeGreaterThan(0)
      }
    }
  })

  test('no two English entries are the same text (the text is the id)', () => {
    const texts = [...Object.values(en.error), ...Object.values(en.field)]
    expect(texts.length).toBe(new Set(texts).size)
  })

  test('a templated text is found with its parameters and rendered in Chinese', () => {
    expect(findMessage('This resource is used by 3 learning task(s); change those tasks first.')).toEqual({
      section: 'error',
      key: 'resourceInUse',
      params: { count: '3' },
    })
    expect(localizeText('This resource is used by 3 learning task(s); change those tasks first.', 'zh-CN')).toBe(
      '有 3 个学习任务正在使用该资源，请先修改这些任务。',
    )
    expect(localizeText('Students have already submitted answers under this knowledge point, so it cannot be deleted. Edit it instead.', 'zh-CN')).toBe(
      '已有学生在这个知识点下提交了答案，无法删除，可以改为编辑。',
    )
    expect(localizeText('A sentence nobody wrote down.', 'zh-CN')).toBe('A sentence nobody wrote down.')
    expect(renderMessage('en', 'error', 'notMember')).toBe('You are not a member of this course.')
  })

  test('every message the service code throws or writes into a schema is in the catalogue', async () => {
    const missing: string[] = []
    let seen = 0
    for (const f of await files(SRC)) {
      for (const m of messagesIn(await Bun.file(f).text(), relative(SRC, f))) {
        seen++
        if (!findMessage(m.text)) missing.push(`${m.where} "${m.text}"`)
      }
    }
    expect(seen).toBeGreaterThan(100)
    expect(missing).toEqual([])
  }, 30_000)
})
