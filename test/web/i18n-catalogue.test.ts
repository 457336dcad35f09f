import { describe, expect, test } from 'bun:test'
import { readdir } from 'node:fs/promises'
import { join, relative } from 'node:path'
import ts from 'typescript'

/**
 * The web app's words are all in its message catalogues (src/web/client/i18n/messages/<lang>),
 * and every language has exactly the keys of the English catalogue.
 */
const CLIENT = join(import.meta.dir, '..', '..', 'src', 'web', 'client')
const MESSAGES = join(CLIENT, 'i18n', 'messages')

async function files(dir: string, ext: RegExp): Promise<string[]> {
  const out: string[] = []
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) out.push(...(await files(p, ext)))
    else if (ext.test(e.name)) out.push(p)
  }
  return out.sort()
}

function keysOf(obj: unknown, prefix = ''): string[] {
  if (typeof obj !== 'object' || obj === null) return [prefix]
  return Object.entries(obj).flatMap(([k, v]) => keysOf(v, prefix ? `${prefix}.${k}` : k))
}

/** i18next plural forms: English has _one/_other, Chinese only _other. Compare the base keys. */
const base = (k: string) => k.replace(/_(zero|one|two|few|many|other)$/, '')

describe('message catalogues', () => {
  test('every namespace exists in English and Simplified Chinese with the same keys', async () => {
    const en = (await readdir(join(MESSAGES, 'en'))).filter((f) => f.endsWith('.ts')).sort()
    const zh = (await readdir(join(MESSAGES, 'zh-CN'))).filter((f) => f.endsWith('.ts')).sort()
    expect(zh).toEqual(en)
    expect(en).toContain('common.ts')
    for (const file of en) {
      const a = (await import(join(MESSAGES, 'en', file))).default
      const b = (await import(join(MESSAGES, 'zh-CN', file))).default
      const ka = [...new Set(keysOf(a).map(base))].sort()
      const kb = [...new Set(keysOf(b).map(base))].sort()
      expect({ file, keys: kb }).toEqual({ file, keys: ka })
      for (const k of keysOf(b)) {
        const v = k.split('.').reduce((o: any, p) => o?.[p], b)
        expect(typeof v === 'string' && v.trim().length > 0).toBe(true)
      }
    }
  })
})

// Attributes whose string value a person reads or hears.
const READ_ATTRS = new Set(['label', 'title', 'placeholder', 'aria-label', 'alt', 'hint', 'description', 'emptyText', 'confirmText', 'heading'])
// A string literal outside JSX that looks like a sentence or a label a person reads.
const SENTENCE = /^[A-Z][a-z]+([ ,'’][^]*)?[a-z.!?…:)]$|^[A-Z][a-z]+ [a-z]/

/** Places in a TSX/TS source where English text is written inline instead of coming from the catalogue. */
export function inlineTexts(source: string, fileName: string): string[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS)
  const found: string[] = []
  const where = (n: ts.Node) => `${fileName}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`
  const visit = (n: ts.Node) => {
    if (ts.isJsxText(n)) {
      const text = n.getText().trim()
      if (/[A-Za-z]{2,}/.test(text)) found.push(`${where(n)} text "${text.slice(0, 60)}"`)
    } else if (ts.isJsxAttribute(n) && n.initializer && ts.isStringLiteral(n.initializer)) {
      const name = n.name.getText()
      if (READ_ATTRS.has(name) && /[A-Za-z]{2,}/.test(n.initializer.text)) found.push(`${where(n)} ${name}="${n.initializer.text.slice(0, 60)}"`)
    } else if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && !ts.isImportDeclaration(n.parent) && !ts.isExportDeclaration(n.parent)) {
      const parent = n.parent
      const isKey = ts.isPropertyAssignment(parent) && parent.name === n
      const inType = ts.isLiteralTypeNode(parent)
      const inCall = ts.isCallExpression(parent) && /^(t|translate|i18next\.t)$/.test(parent.expression.getText())
      // `e.key === 'Enter'`: a value compared against is never shown to anyone.
      const compared =
        ts.isBinaryExpression(parent) &&
        [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(parent.operatorToken.kind)
      if (!isKey && !inType && !inCall && !compared && SENTENCE.test(n.text) && !ts.isJsxAttribute(parent)) found.push(`${where(n)} '${n.text.slice(0, 60)}'`)
    } else if (ts.isTemplateExpression(n)) {
      const head = n.head.text
      if (SENTENCE.test(head.trim() + 'x') && /[A-Za-z]{3,} [a-z]/.test(head)) found.push(`${where(n)} \`${head.slice(0, 60)}\``)
    }
    ts.forEachChild(n, visit)
  }
  visit(sf)
  return found
}

describe('no inline user-facing text in the web app', () => {
  test('the detector finds JSX text, read attributes and sentences, and ignores catalogue calls', () => {
    const src = `const a = <p title="Open the file">Hello world {t('x')}</p>; const b = 'Enter your password.'; t('Not this one.'); const c = 'btn btn-primary'`
    const hits = inlineTexts(src, 'x.tsx')
    expect(hits.length).toBe(3)
  })

  test('every .ts/.tsx file of the web client takes its words from the catalogue', async () => {
    const all = (await files(CLIENT, /\.(ts|tsx)$/)).filter((f) => !f.includes(`${join('i18n', 'messages')}`))
    const hits: string[] = []
    for (const f of all) hits.push(...inlineTexts(await Bun.file(f).text(), relative(CLIENT, f)))
    expect(hits).toEqual([])
  })
})
