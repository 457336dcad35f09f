import sanitizeHtml from 'sanitize-html'
import { newId } from '../../lib/ids.ts'
import { cleanContentType, cleanFileName } from '../../storage/upload.ts'
import type { QuestionType } from '../learning/model.ts'

/**
 * What a package becomes, built in memory from its documents (small: texts and questions, never
 * file bytes) before a row is written; write.ts turns it into a course in one transaction.
 */
export interface PlanQuestion {
  type: QuestionType
  stem: string
  options: string[]
  correctOptions: number[]
  points: number
}

export interface PlanTask {
  title: string
  kind: 'LEARNING' | 'HOMEWORK'
  type: 'MEDIA' | 'QUIZ'
  material: 'TEXT' | 'LINK' | 'FILE' | null
  content: string
  url: string | null
  /** A FILE task's resource (an id of Plan.resources). */
  resourceId: string | null
  questions: PlanQuestion[]
  startAt: Date | null
  dueAt: Date | null
  draft: boolean
  /** A homework's rubric (Canvas's course_settings/rubrics.xml), checked as PUT …/rubric checks one when written. */
  rubric?: PlanRubric
}

export interface PlanRubric {
  criteria: { title: string; description: string; levels: { title: string; description: string; points: number }[] }[]
}

export interface PlanPoint {
  title: string
  tasks: PlanTask[]
}

export interface PlanUnit {
  title: string
  description: string
  points: PlanPoint[]
}

export interface Skipped {
  kind: string
  title: string
  reason: string
}

export interface PlanResource {
  id: string
  /** The package path of its bytes (a key of the files stored while reading). */
  path: string
  name: string
  contentType: string
}

export interface Plan {
  title: string
  description: string
  units: PlanUnit[]
  skipped: Skipped[]
  /** By package path: each file becomes one course resource, however often it is used. */
  resources: Map<string, PlanResource>
}

export const newPlan = (): Plan => ({ title: '', description: '', units: [], skipped: [], resources: new Map() })

export const resourceUrl = (id: string) => `/api/v1/resources/${id}/file`

/** The course resource for the file at `path` (made once per path). */
export function resourceFor(plan: Plan, path: string, name: string, contentType = ''): PlanResource {
  let r = plan.resources.get(path)
  if (!r) {
    r = { id: newId(), path, name: cleanFileName(name || path.split('/').pop() || 'file'), contentType: cleanContentType(contentType || guessType(path)) }
    plan.resources.set(path, r)
  }
  return r
}

const TYPES: Record<string, string> = {
  pdf: 'application/pdf', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', svg: 'image/svg+xml',
  webp: 'image/webp', mp4: 'video/mp4', mp3: 'audio/mpeg', txt: 'text/plain', html: 'text/html', htm: 'text/html',
  doc: 'application/msword', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  ppt: 'application/vnd.ms-powerpoint', pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xls: 'application/vnd.ms-excel', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', zip: 'application/zip', csv: 'text/csv',
}
export const guessType = (path: string) => TYPES[path.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream'

/** A title as the service takes it: one line, 1-200 characters. */
export function cleanTitle(raw: string, fallback: string): string {
  const t = plainOf(raw).replace(/\s+/g, ' ').trim()
  return Array.from(t || fallback).slice(0, 200).join('')
}

const decode5 = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&nbsp;/g, ' ').replace(/&amp;/g, '&')

/** HTML → plain text (stems, options, titles). */
export function plainOf(html: string): string {
  const withBreaks = html.replace(/<br\s*\/?>/gi, '\n').replace(/<\/(p|div|li|h\d)>/gi, '\n')
  return decode5(sanitizeHtml(withBreaks, { allowedTags: [], allowedAttributes: {} }))
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g, '')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}

const TOKENS = /(@@PLUGINFILE@@|\$IMS-CC-FILEBASE\$|%24IMS-CC-FILEBASE%24|\$CANVAS_OBJECT_REFERENCE\$|\$WIKI_REFERENCE\$|\$CANVAS_COURSE_REFERENCE\$)\/?/g

function decodeRef(ref: string): string {
  try {
    return decodeURIComponent(ref.replace(/&amp;/g, '&'))
  } catch {
    return ref
  }
}

/**
 * Points a document's embedded files at course resources: `resolve` maps a reference (as written,
 * decoded) to a resource, or null. An image becomes a link to its resource (the rich-text
 * allow-list has no images); a reference that names no file of the package loses its link. No
 * `@@PLUGINFILE@@` or `$IMS-CC-FILEBASE$` is left.
 */
export function rewriteLinks(html: string, resolve: (ref: string) => PlanResource | null): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
  const attrOf = (tag: string, name: string) => {
    const m = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag)
    return m ? (m[1] ?? m[2] ?? m[3] ?? '') : null
  }
  const isLocal = (ref: string) => !/^[a-z][a-z0-9+.-]*:/i.test(ref) && !ref.startsWith('//') && !ref.startsWith('#')
  let out = html.replace(/<img\b[^>]*>/gi, (tag) => {
    const src = attrOf(tag, 'src')
    const alt = attrOf(tag, 'alt')
    const r = src && (isLocal(decodeRef(src)) || TOKENS.test(src)) ? resolve(decodeRef(src)) : null
    TOKENS.lastIndex = 0
    const label = esc(decode5(alt || r?.name || ''))
    if (r) return `<a href="${resourceUrl(r.id)}">${label || esc(r.name)}</a>`
    if (src && /^https?:\/\//i.test(src)) return `<a href="${esc(src)}">${label || 'image'}</a>`
    return label ? `[${label}]` : ''
  })
  out = out.replace(/<a\b([^>]*)>/gi, (tag) => {
    const href = attrOf(tag, 'href')
    if (href === null) return tag
    const ref = decodeRef(href)
    if (ref.startsWith('/api/v1/resources/')) return tag
    TOKENS.lastIndex = 0
    if (!TOKENS.test(ref) && !isLocal(ref)) return tag
    TOKENS.lastIndex = 0
    const r = resolve(ref)
    return r ? `<a href="${resourceUrl(r.id)}">` : '<a>'
  })
  return out.replace(TOKENS, '')
}

/** The package path a reference names, relative to the document at `from` (tokens stripped). */
export function refPaths(ref: string, from: string): string[] {
  const clean = ref.split(/[?#]/)[0]!
  const stripped = clean.replace(TOKENS, '')
  TOKENS.lastIndex = 0
  const tokened = stripped !== clean
  const dir = from.includes('/') ? from.slice(0, from.lastIndexOf('/') + 1) : ''
  const candidates = tokened ? [`web_resources/${stripped}`, dir + stripped, stripped] : [dir + stripped, stripped]
  return candidates.map(normalise).filter((p): p is string => p !== null)
}

/** Resolves `.` and `..` inside the package; null when it leaves the package. */
export function normalise(path: string): string | null {
  const out: string[] = []
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue
    if (seg === '..') {
      if (!out.length) return null
      out.pop()
    } else out.push(seg)
  }
  return out.join('/')
}

/** Moves a date by whole days (the import's shiftDays). */
export const shift = (d: Date | null, days: number) => (d ? new Date(d.getTime() + days * 86_400_000) : null)
