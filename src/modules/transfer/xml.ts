import { XMLParser } from 'fast-xml-parser'
import { ImportFailure } from './failure.ts'

/**
 * XML of a package, parsed by fast-xml-parser. A document with a DOCTYPE is refused outright
 * (DTDs off: no internal entities to expand, no external entity or DTD to fetch; fast-xml-parser
 * never fetches anything, and no package format we read has a DTD). Only the five XML entities
 * and character references are decoded.
 */
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: { enabled: true, maxEntityCount: 0, maxTotalExpansions: 100_000, maxExpandedLength: 50_000_000 },
  htmlEntities: false,
})

const DOCTYPE = /<!DOCTYPE/i

export type XNode = Record<string, any>

export function parseXml(text: string, where: string): XNode {
  if (DOCTYPE.test(text)) {
    throw new ImportFailure('IMPORT_UNSAFE_PACKAGE', `An XML document of the package declares a DTD (${where.slice(0, 100)}); DTDs are not accepted, nothing was imported.`)
  }
  try {
    return parser.parse(text.replace(/^\uFEFF/, '')) as XNode
  } catch {
    throw new ImportFailure('IMPORT_BROKEN_PACKAGE', `An XML document of the package cannot be read (${where.slice(0, 100)}); nothing was imported.`)
  }
}

/** A child that may be one node or many, as an array. */
export const arr = <T = XNode>(v: unknown): T[] => (v === undefined || v === null || v === '' ? [] : Array.isArray(v) ? (v as T[]) : [v as T])

/** An element's text (its `#text` when it has attributes); Moodle's `$@NULL@$` is empty. */
export function text(v: unknown): string {
  if (v === undefined || v === null) return ''
  if (typeof v === 'object') return text((v as XNode)['#text'])
  const s = String(v)
  return s === '$@NULL@$' ? '' : s
}

export const attr = (v: unknown, name: string): string => (v && typeof v === 'object' ? String((v as XNode)[`@${name}`] ?? '') : '')
