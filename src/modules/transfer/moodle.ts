import { arr, attr, parseXml, text, type XNode } from './xml.ts'
import { ImportFailure } from './failure.ts'
import { cleanTitle, newPlan, plainOf, resourceFor, rewriteLinks, shift, type Plan, type PlanQuestion, type PlanResource, type PlanTask } from './plan.ts'
import type { Texts } from './scan.ts'

/**
 * A Moodle 2.x-4.x course backup → a plan: sections → units (one knowledge point each, the
 * section's activities in their order); page, label, book → TEXT; url → LINK; resource and
 * folder → a course resource and a FILE task per file; assign/assignment → HOMEWORK with its
 * dates; quiz → QUIZ from the question bank; hidden modules → DRAFT. Other modules are skipped
 * with a reason. `@@PLUGINFILE@@` links point at the course resources made from files.xml.
 */
interface MoodleFile {
  hash: string
  contextid: string
  component: string
  filearea: string
  filepath: string
  filename: string
  mimetype: string
}

const SKIP_REASONS: Record<string, string> = {
  forum: 'Forums have no equivalent here.',
  wiki: 'Wikis have no equivalent here.',
  glossary: 'Glossaries have no equivalent here.',
  choice: 'Choices (polls) have no equivalent here.',
  feedback: 'Feedback surveys have no equivalent here.',
  lti: 'An LTI link needs a tool registered here; none was imported.',
}

const blank = (title: string): PlanTask => ({
  title, kind: 'LEARNING', type: 'MEDIA', material: 'TEXT', content: '', url: null, resourceId: null, questions: [], startAt: null, dueAt: null, draft: false,
})

const unix = (v: unknown) => {
  const n = Number(text(v))
  return Number.isFinite(n) && n > 0 ? new Date(n * 1000) : null
}

export function moodlePlan(texts: Texts, stored: Set<string>, shiftDays: number, topic: (n: number) => string): Plan {
  const doc = (path: string): XNode | null => (texts.has(path) ? parseXml(texts.get(path)!, path) : null)
  const backup = doc('moodle_backup.xml')?.moodle_backup?.information
  if (!backup) throw new ImportFailure('IMPORT_BROKEN_PACKAGE', 'The backup has no readable moodle_backup.xml; nothing was imported.')
  const plan = newPlan()
  const course = doc('course/course.xml')?.course
  plan.title = cleanTitle(text(course?.fullname) || text(backup.original_course_fullname), 'Imported course')
  plan.description = plainOf(text(course?.summary)).slice(0, 5000)

  // files.xml: by context, for @@PLUGINFILE@@ links and file modules.
  const files: MoodleFile[] = arr(doc('files.xml')?.files?.file)
    .map((f) => ({
      hash: text(f.contenthash), contextid: text(f.contextid), component: text(f.component), filearea: text(f.filearea),
      filepath: text(f.filepath) || '/', filename: text(f.filename), mimetype: text(f.mimetype),
    }))
    .filter((f) => f.filename !== '.' && f.filename !== '')
  const pathOf = (f: MoodleFile) => `files/${f.hash.slice(0, 2)}/${f.hash}`
  const resourceOf = (f: MoodleFile): PlanResource | null => (stored.has(pathOf(f)) ? resourceFor(plan, pathOf(f), f.filename, f.mimetype) : null)
  const resolver = (contextid: string, component: string) => (ref: string) => {
    const rel = ref.replace(/^.*?@@PLUGINFILE@@/, '').split(/[?#]/)[0]!
    const full = rel.startsWith('/') ? rel : `/${rel}`
    const name = full.slice(full.lastIndexOf('/') + 1)
    const dir = full.slice(0, full.lastIndexOf('/') + 1)
    const hit =
      files.find((f) => f.contextid === contextid && f.component === component && f.filename === name && f.filepath === dir) ??
      files.find((f) => f.contextid === contextid && f.filename === name)
    return hit ? resourceOf(hit) : null
  }
  const html = (raw: string, contextid: string, component: string) => rewriteLinks(raw, resolver(contextid, component))

  // The question bank: questions by id, and (Moodle 4) bank entries → their newest version.
  const questions = new Map<string, XNode>()
  const entries = new Map<string, string>()
  const walk = (n: unknown, entry: string | null) => {
    if (!n || typeof n !== 'object') return
    if (Array.isArray(n)) return n.forEach((x) => walk(x, entry))
    const node = n as XNode
    if ('qtype' in node && attr(node, 'id')) {
      questions.set(attr(node, 'id'), node)
      if (entry) entries.set(entry, attr(node, 'id'))
      return
    }
    for (const [k, v] of Object.entries(node)) if (!k.startsWith('@')) walk(v, k === 'question_bank_entry' ? null : entry)
    void 0
  }
  const qdoc = doc('questions.xml')
  for (const cat of arr(qdoc?.question_categories?.question_category)) {
    walk(cat.questions, null)
    for (const e of arr(cat.question_bank_entries?.question_bank_entry)) walk(e.question_version, attr(e, 'id'))
  }

  const questionOf = (q: XNode, mark: number): PlanQuestion | string => {
    const type = text(q.qtype)
    const stem = plainOf(text(q.questiontext)) || cleanTitle(text(q.name), 'Question')
    const points = mark > 0 ? mark : Number(text(q.defaultmark)) || 1
    const answersOf = (plugin: string) => arr(q[`plugin_qtype_${plugin}_question`]?.answers?.answer)
    if (type === 'multichoice') {
      const answers = answersOf('multichoice')
      const single = text(q.plugin_qtype_multichoice_question?.multichoice?.single) !== '0'
      const options = answers.map((a) => plainOf(text(a.answertext)))
      const correctOptions = answers.map((a, i) => (Number(text(a.fraction)) > 0 ? i : -1)).filter((i) => i >= 0)
      return { type: single ? 'SINGLE_CHOICE' : 'MULTIPLE_CHOICE', stem, options, correctOptions: single ? correctOptions.slice(0, 1) : correctOptions, points }
    }
    if (type === 'truefalse') {
      const answers = answersOf('truefalse')
      const trueRight = answers.some((a) => /^true$/i.test(plainOf(text(a.answertext))) && Number(text(a.fraction)) > 0)
      return { type: 'SINGLE_CHOICE', stem, options: ['True', 'False'], correctOptions: [trueRight ? 0 : 1], points }
    }
    if (type === 'shortanswer' || type === 'essay') return { type: 'SHORT_ANSWER', stem, options: [], correctOptions: [], points }
    if (type === 'description') return 'A description is not a question.'
    return `This question type (${type || 'unknown'}) has no equivalent here.`
  }

  const activities = arr(backup.contents?.activities?.activity).map((a) => ({
    moduleid: text(a.moduleid), sectionid: text(a.sectionid), modulename: text(a.modulename), title: text(a.title), directory: text(a.directory),
  }))
  const sections = arr(backup.contents?.sections?.section).map((s) => ({ sectionid: text(s.sectionid), directory: text(s.directory) }))

  const taskOf = (act: (typeof activities)[number]): PlanTask | null => {
    const title = cleanTitle(act.title, act.modulename)
    const dir = act.directory
    const module = doc(`${dir}/module.xml`)?.module
    const activity = doc(`${dir}/${act.modulename}.xml`)?.activity
    const body = activity?.[act.modulename]
    if (!activity || !body) {
      plan.skipped.push({ kind: act.modulename, title, reason: SKIP_REASONS[act.modulename] ?? 'This kind of activity has no equivalent here.' })
      return null
    }
    const ctx = attr(activity, 'contextid')
    const comp = `mod_${act.modulename}`
    const hidden = text(module?.visible) === '0'
    const t = (x: PlanTask | null) => (x && hidden ? { ...x, draft: true } : x)
    switch (act.modulename) {
      case 'page':
        return t({ ...blank(title), content: [html(text(body.intro), ctx, comp), html(text(body.content), ctx, comp)].filter((s) => s.trim()).join('\n') })
      case 'label': {
        const content = html(text(body.intro), ctx, comp)
        return t({ ...blank(cleanTitle(text(body.name) || plainOf(content).slice(0, 80), 'Label')), content })
      }
      case 'book': {
        const chapters = arr(body.chapters?.chapter).map((c) => `<h2>${cleanTitle(text(c.title), '')}</h2>\n${html(text(c.content), ctx, comp)}`)
        return t({ ...blank(title), content: [html(text(body.intro), ctx, comp), ...chapters].join('\n') })
      }
      case 'url': {
        const url = text(body.externalurl)
        if (!/^https?:\/\//i.test(url)) {
          plan.skipped.push({ kind: 'url', title, reason: 'The link is not an http or https address.' })
          return null
        }
        return t({ ...blank(title), material: 'LINK', url })
      }
      case 'resource':
      case 'folder': {
        const own = files.filter((f) => f.contextid === ctx && f.component === comp && f.filearea === 'content')
        const first = own.map(resourceOf).find(Boolean)
        if (!first) {
          plan.skipped.push({ kind: act.modulename, title, reason: 'The file is missing from the package.' })
          return null
        }
        if (own.length > 1) {
          // A folder: the first file is the task, every file a course resource listed in its text.
          const list = own.map(resourceOf).filter((r): r is PlanResource => r !== null)
          return t({ ...blank(title), content: `<ul>${list.map((r) => `<li><a href="/api/v1/resources/${r.id}/file">${r.name.replace(/</g, '&lt;')}</a></li>`).join('')}</ul>` })
        }
        return t({ ...blank(title), material: 'FILE', resourceId: first.id })
      }
      case 'assign':
      case 'assignment': {
        const dueAt = unix(body.duedate) ?? unix(body.timedue)
        const startAt = unix(body.allowsubmissionsfromdate) ?? unix(body.timeavailable)
        return t({ ...blank(title), kind: 'HOMEWORK', content: html(text(body.intro), ctx, comp), dueAt: shift(dueAt, shiftDays), startAt: shift(startAt, shiftDays) })
      }
      case 'quiz': {
        const out: PlanQuestion[] = []
        const instances = arr(body.question_instances?.question_instance)
        for (const inst of instances) {
          const ref = text(inst.question_reference?.questionbankentryid)
          const qid = ref ? entries.get(ref) : text(inst.questionid) || text(inst.question)
          const q = qid ? questions.get(qid) : undefined
          if (!q) {
            plan.skipped.push({ kind: 'question', title, reason: 'A question of this quiz is missing from the question bank (random questions are not imported).' })
            continue
          }
          const made = questionOf(q, Number(text(inst.maxmark)) || 0)
          if (typeof made === 'string') plan.skipped.push({ kind: 'question', title: cleanTitle(text(q.name), title), reason: made })
          else out.push(made)
        }
        if (!out.length) {
          plan.skipped.push({ kind: 'quiz', title, reason: 'The quiz has no question that can be imported.' })
          return null
        }
        const dueAt = unix(body.timeclose)
        return t({
          ...blank(title), type: 'QUIZ', material: null, questions: out,
          kind: dueAt ? 'HOMEWORK' : 'LEARNING', dueAt: shift(dueAt, shiftDays), startAt: dueAt ? shift(unix(body.timeopen), shiftDays) : null,
        })
      }
      default:
        plan.skipped.push({ kind: act.modulename, title, reason: SKIP_REASONS[act.modulename] ?? 'This kind of activity has no equivalent here.' })
        return null
    }
  }

  const byModule = new Map(activities.map((a) => [a.moduleid, a]))
  sections.forEach((s, i) => {
    const sec = doc(`${s.directory}/section.xml`)?.section
    const number = Number(text(sec?.number) || i)
    const title = cleanTitle(text(sec?.name), number === 0 ? topic(0) : topic(number))
    const sectionCtx = attr(doc('course/course.xml')?.course, 'contextid')
    const summary = plainOf(html(text(sec?.summary), sectionCtx, 'course')).slice(0, 5000)
    const order = text(sec?.sequence).split(',').map((x) => x.trim()).filter(Boolean)
    const mine = activities.filter((a) => a.sectionid === s.sectionid)
    const ordered = [...order.map((id) => byModule.get(id)).filter((a) => a && a.sectionid === s.sectionid), ...mine.filter((a) => !order.includes(a.moduleid))]
    const tasks = ordered.map((a) => taskOf(a!)).filter((x): x is PlanTask => x !== null)
    const hidden = text(sec?.visible) === '0'
    if (hidden) for (const task of tasks) task.draft = true
    if (!tasks.length && !summary && number === 0) return
    plan.units.push({ title, description: summary, points: [{ title, tasks }] })
  })
  return plan
}
