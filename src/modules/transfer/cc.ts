import { arr, attr, parseXml, text, type XNode } from './xml.ts'
import { ImportFailure } from './failure.ts'
import { qtiQuestions } from './qti.ts'
import { cleanTitle, newPlan, plainOf, normalise, refPaths, resourceFor, rewriteLinks, shift, type Plan, type PlanPoint, type PlanRubric, type PlanTask } from './plan.ts'
import type { Texts } from './scan.ts'

/**
 * A Common Cartridge 1.0-1.3 package (Canvas exports included) → a plan. Top-level items of the
 * organization → learning units; an item's sub-items that have children of their own → knowledge
 * points; a Canvas sub-header (an item without resource or children) starts a new point; other
 * items → tasks of the unit's current point.
 */
interface CcResource {
  id: string
  type: string
  href: string
  files: string[]
  deps: string[]
}

const LTI = /imsbasiclti/
const DISCUSSION = /imsdt/
const WEBLINK = /imswl/
const QTI = /imsqti.*assessment|assessment.*imsqti/
const QUESTION_BANK = /question-bank/

const blankTask = (title: string): PlanTask => ({
  title, kind: 'LEARNING', type: 'MEDIA', material: 'TEXT', content: '', url: null, resourceId: null, questions: [], startAt: null, dueAt: null, draft: false,
})

const isoDate = (s: string) => {
  if (!s) return null
  const d = new Date(s)
  return Number.isNaN(d.getTime()) ? null : d
}

export function ccPlan(texts: Texts, files: Set<string>, shiftDays: number, topic: (n: number) => string): Plan {
  const manifestText = texts.get('imsmanifest.xml')
  if (manifestText === undefined) throw new ImportFailure('IMPORT_BROKEN_PACKAGE', 'The cartridge has no imsmanifest.xml; nothing was imported.')
  const manifest = parseXml(manifestText, 'imsmanifest.xml').manifest
  if (!manifest) throw new ImportFailure('IMPORT_BROKEN_PACKAGE', 'The cartridge has no imsmanifest.xml; nothing was imported.')
  const plan = newPlan()
  const lom = manifest.metadata?.lom?.general
  plan.title = cleanTitle(text(arr(lom?.title?.string)[0]) || text(lom?.title), 'Imported course')
  plan.description = plainOf(text(arr(lom?.description?.string)[0])).slice(0, 5000)

  const resources = new Map<string, CcResource>()
  for (const r of arr(manifest.resources?.resource)) {
    resources.set(attr(r, 'identifier'), {
      id: attr(r, 'identifier'),
      type: attr(r, 'type'),
      href: normalise(attr(r, 'href')) ?? '',
      files: arr(r.file).map((f) => normalise(attr(f, 'href')) ?? '').filter(Boolean),
      deps: arr(r.dependency).map((d) => attr(d, 'identifierref')),
    })
  }
  const exists = (p: string) => files.has(p) || texts.has(p)
  const rubrics = canvasRubrics(texts)
  const fileResolver = (from: string) => (ref: string) => {
    for (const p of refPaths(ref, from)) if (files.has(p)) return resourceFor(plan, p, p.split('/').pop()!)
    return null
  }
  const htmlOf = (path: string) => rewriteLinks(texts.get(path) ?? '', fileResolver(path))
  const bodyOf = (html: string) => /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html

  const taskOf = (title: string, res: CcResource | undefined): PlanTask | null => {
    if (!res) {
      plan.skipped.push({ kind: 'item', title, reason: 'The item names no resource of the package.' })
      return null
    }
    const t = res.type
    if (LTI.test(t)) {
      plan.skipped.push({ kind: 'lti', title, reason: 'An LTI link needs a tool registered here; none was imported.' })
      return null
    }
    if (DISCUSSION.test(t)) {
      plan.skipped.push({ kind: 'discussion', title, reason: 'Discussions have no equivalent here.' })
      return null
    }
    if (QUESTION_BANK.test(t)) {
      plan.skipped.push({ kind: 'question-bank', title, reason: 'A question bank outside a quiz is not imported.' })
      return null
    }
    if (WEBLINK.test(t)) {
      const path = res.files[0] ?? res.href
      const doc = texts.has(path) ? parseXml(texts.get(path)!, path) : null
      const url = attr(doc?.webLink?.url, 'href')
      if (!url) {
        plan.skipped.push({ kind: 'link', title, reason: 'The web link has no address.' })
        return null
      }
      return { ...blankTask(title), material: 'LINK', url }
    }
    if (QTI.test(t)) {
      const path = res.files.find((f) => texts.has(f) && f.endsWith('.xml')) ?? res.href
      if (!texts.has(path)) {
        plan.skipped.push({ kind: 'quiz', title, reason: 'The assessment document is missing from the package.' })
        return null
      }
      const { questions } = qtiQuestions(parseXml(texts.get(path)!, path), plan.skipped, title)
      if (!questions.length) {
        plan.skipped.push({ kind: 'quiz', title, reason: 'The quiz has no question that can be imported.' })
        return null
      }
      // Canvas's assessment_meta.xml (a dependency): due date and published state.
      let dueAt: Date | null = null
      let startAt: Date | null = null
      let draft = false
      for (const d of res.deps.map((id) => resources.get(id)).filter(Boolean) as CcResource[]) {
        const metaPath = [d.href, ...d.files].find((f) => f.endsWith('assessment_meta.xml') && texts.has(f))
        if (!metaPath) continue
        const q = parseXml(texts.get(metaPath)!, metaPath).quiz ?? {}
        dueAt = isoDate(text(q.due_at))
        startAt = isoDate(text(q.unlock_at))
        draft = text(q.available) === 'false'
      }
      const homework = dueAt !== null
      return {
        ...blankTask(title), type: 'QUIZ', material: null, questions, draft,
        kind: homework ? 'HOMEWORK' : 'LEARNING', dueAt: shift(dueAt, shiftDays), startAt: homework ? shift(startAt, shiftDays) : null,
      }
    }
    // CC 1.3 assignment_xmlv1p0 and Canvas assignments (assignment_settings.xml).
    const settingsPath = [res.href, ...res.files].find((f) => f.endsWith('assignment_settings.xml') && texts.has(f))
    if (/assignment_xmlv1p0/.test(t) || settingsPath) {
      let description = ''
      let rubric: PlanRubric | undefined
      let dueAt: Date | null = null
      let startAt: Date | null = null
      let draft = false
      if (settingsPath) {
        const s = parseXml(texts.get(settingsPath)!, settingsPath).assignment ?? {}
        dueAt = isoDate(text(s.due_at))
        startAt = isoDate(text(s.unlock_at))
        draft = text(s.workflow_state) === 'unpublished'
        const ref = text(s.rubric_identifierref)
        if (ref && rubrics.has(ref)) rubric = rubrics.get(ref)
        else if (ref) plan.skipped.push({ kind: 'rubric', title, reason: 'The rubric the assignment names is not in the package.' })
        const htmlPath = [res.href, ...res.files].find((f) => /\.html?$/.test(f) && texts.has(f))
        if (htmlPath) description = bodyOf(htmlOf(htmlPath))
      } else {
        const path = [res.href, ...res.files].find((f) => f.endsWith('.xml') && texts.has(f))
        const a = path ? (parseXml(texts.get(path)!, path).assignment ?? {}) : {}
        description = rewriteLinks(text(a.text), fileResolver(path ?? ''))
      }
      return { ...blankTask(title), kind: 'HOMEWORK', content: description, dueAt: shift(dueAt, shiftDays), startAt: shift(startAt, shiftDays), draft, ...(rubric ? { rubric } : {}) }
    }
    if (t === 'webcontent' || /learning-application-resource/.test(t)) {
      const main = res.href || res.files[0] || ''
      if (/\.html?$/i.test(main) && texts.has(main)) return { ...blankTask(title), content: bodyOf(htmlOf(main)) }
      if (files.has(main)) return { ...blankTask(title), material: 'FILE', resourceId: resourceFor(plan, main, main.split('/').pop()!).id }
      plan.skipped.push({ kind: 'content', title, reason: exists(main) ? 'This kind of content has no equivalent here.' : 'The file is missing from the package.' })
      return null
    }
    plan.skipped.push({ kind: t || 'item', title, reason: 'This kind of content has no equivalent here.' })
    return null
  }

  const org = arr(manifest.organizations?.organization)[0]
  const roots = arr(org?.item)
  // A rooted hierarchy: the one root item holds the top-level items.
  const top = roots.length === 1 && !attr(roots[0], 'identifierref') ? arr(roots[0]!.item) : roots
  top.forEach((item, i) => {
    const unitTitle = cleanTitle(text(item.title), topic(i + 1))
    const unit = { title: unitTitle, description: '', points: [] as PlanPoint[] }
    let current: PlanPoint | null = null
    const pointNamed = (title: string) => {
      current = { title, tasks: [] }
      unit.points.push(current)
      return current
    }
    const add = (child: XNode, into: () => PlanPoint) => {
      const title = cleanTitle(text(child.title), 'Untitled')
      const task = taskOf(title, resources.get(attr(child, 'identifierref')))
      if (task) {
        if (attr(child, 'isvisible') === 'false') task.draft = true
        into().tasks.push(task)
      }
    }
    if (attr(item, 'identifierref')) add(item, () => current ?? pointNamed(unitTitle))
    for (const child of arr(item.item)) {
      const sub = arr(child.item)
      if (!attr(child, 'identifierref') && sub.length) {
        const point = pointNamed(cleanTitle(text(child.title), unitTitle))
        const walk = (n: XNode) => {
          for (const c of arr(n.item)) {
            if (attr(c, 'identifierref')) add(c, () => point)
            walk(c)
          }
        }
        walk(child)
        current = null
      } else if (!attr(child, 'identifierref')) {
        pointNamed(cleanTitle(text(child.title), unitTitle))
      } else add(child, () => current ?? pointNamed(unitTitle))
    }
    plan.units.push(unit)
  })
  return plan
}

/**
 * Canvas's rubrics (course_settings/rubrics.xml, its extension namespace) by identifier: per
 * criterion its title (`description`), text (`long_description`) and ratings (title, text,
 * points), in the document's order. Outcome links, ranges and free-form comments have no
 * equivalent here and are left out.
 */
function canvasRubrics(texts: Texts): Map<string, PlanRubric> {
  // Plain text in Canvas (XML-escaped, not HTML): kept as written, without control characters.
  const plainText = (v: unknown, max: number) =>
    text(v).replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g, '').trim().slice(0, max)
  const out = new Map<string, PlanRubric>()
  for (const [path, body] of texts) {
    if (!/(^|\/)course_settings\/rubrics\.xml$/.test(path)) continue
    for (const r of arr(parseXml(body, path).rubrics?.rubric)) {
      const criteria = arr(r.criteria?.criterion ?? r.data?.criterion).map((c) => ({
        title: plainText(c.description, 200),
        description: plainText(c.long_description, 2000),
        levels: arr(c.ratings?.rating).map((l) => ({
          title: plainText(l.description, 200),
          description: plainText(l.long_description, 2000),
          points: Number(text(l.points)),
        })),
      }))
      out.set(attr(r, 'identifier'), { criteria })
    }
  }
  return out
}
