/** Hostile inputs for the route fuzzer, and helpers to plant them in a valid body. */

export const BIG = 'x'.repeat(200 * 1024)
export const HOSTILE_HTML = '<script>alert(1)</script><img src=x onerror=alert(1)>'

/** Path parameter values that are not UUIDs: [label, raw value as it goes into the URL]. */
export const BAD_PATH_IDS: [string, string][] = [
  ['not-a-uuid', 'not-a-uuid'],
  ['SQL injection', encodeURIComponent("'; drop table users;--")],
  ['path traversal (raw)', '../../etc/passwd'],
  ['path traversal (encoded)', encodeURIComponent('../../etc/passwd')],
  ['NUL byte', '%00'],
  ['malformed percent-encoding', '%E0%A4%A'],
  ['template', encodeURIComponent('{{7*7}}${7*7}')],
  ['UUID with a tail', '01900000-0000-7000-8000-000000000000%27--'],
  ['5000 characters', 'a'.repeat(5000)],
  ['unicode', encodeURIComponent('ünï-cødé-😀')],
]

/** Well-formed UUIDs that name nothing. */
export const UNKNOWN_IDS = [
  '01900000-0000-7000-8000-000000000000',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
]

/** Whole JSON bodies that no route accepts: [label, raw text]. */
export const BAD_JSON_BODIES: [string, string][] = [
  ['malformed JSON', '{"title": "x",'],
  ['empty body', ''],
  ['JSON array', '[]'],
  ['JSON number', '42'],
  ['JSON null', 'null'],
  ['JSON string', '"just a string"'],
  ['JSON true', 'true'],
  ['5000 nested arrays', '['.repeat(5000) + ']'.repeat(5000)],
  ['5000 unclosed arrays', '['.repeat(5000)],
  ['5000 nested objects', '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)],
  ['100 000 nested arrays', '['.repeat(100_000) + ']'.repeat(100_000)],
  ['trailing garbage', '{}garbage'],
  ['invalid UTF-8 escape', '{"title": "\\ud800"'],
]

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json }

/** Dot paths of every leaf (string, number, boolean) of a JSON value. */
export function leafPaths(value: unknown, prefix = ''): { path: string; value: unknown }[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leafPaths(v, prefix ? `${prefix}.${i}` : String(i)))
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k))
  }
  return prefix ? [{ path: prefix, value }] : []
}

/** A deep copy of `value` with the leaf at `path` replaced. */
export function withLeaf(value: unknown, path: string, leaf: unknown): unknown {
  const copy = structuredClone(value) as any
  const keys = path.split('.')
  let node = copy
  for (const k of keys.slice(0, -1)) node = node[k]
  node[keys.at(-1)!] = leaf
  return copy
}

/** A value of the wrong JSON type for a leaf. */
export const wrongType = (v: unknown): unknown => (typeof v === 'string' ? 12345 : typeof v === 'number' ? 'not a number' : 'not a boolean')

/** Text that must never appear in a sanitised rich-text field. */
export const UNSAFE_MARKUP = /<script|onerror|<img|javascript:/i
