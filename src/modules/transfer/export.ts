import { makeZip } from 'client-zip'
import type { Sql } from '../../db/connect.ts'
import type { FileStorage } from '../../storage/storage.ts'
import * as lq from '../learning/structure-queries.ts'
import type { Rubric, TaskRow } from '../learning/rows.ts'
import { chunksOf } from '../terms/zip.ts'

/**
 * A course as a Common Cartridge 1.1 package, streamed (client-zip): its units and knowledge
 * points as organization items, TEXT as HTML webcontent, LINK as web links (imswl_xmlv1p1), FILE
 * resources as webcontent under web_resources/, quizzes as QTI 1.2 assessments with their keys
 * and points (cc_weighting), homework with its dates in Canvas's extension
 * (assignment_settings.xml, assessment_meta.xml) and its rubric in Canvas's
 * course_settings/rubrics.xml (named by rubric_identifierref). Rows are read first (small); each stored file is
 * opened only when the zip reaches it. Links inside texts to the course's files point at the
 * files in the package ($IMS-CC-FILEBASE$), so an import gives the same course back.
 */
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
const NS = 'http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1'
const LOMM = 'http://ltsc.ieee.org/xsd/imsccv1p1/LOM/manifest'
const CANVAS = 'http://canvas.instructure.com/xsd/cccv1p0'
export const RUBRICS = 'course_settings/rubrics.xml'
const safeName = (s: string) => s.replace(/[\u0000-\u001f\u007f/\\:*?"<>|#%]+/g, '_').trim().slice(0, 120) || 'file'

interface FileRow {
  id: string
  name: string
  file_name: string | null
  storage_key: string | null
  file_size: string | null
  created_at: Date
}

export async function exportCourse(sql: Sql, storage: FileStorage, courseId: string, now: Date) {
  const [course] = await sql<{ title: string; description: string }[]>`select title, description from courses where id = ${courseId}`
  const [units, points, tasks, files] = await Promise.all([
    lq.unitsOfCourse(sql, courseId),
    lq.pointsOfCourse(sql, courseId),
    lq.tasksOfCourse(sql, courseId),
    sql<FileRow[]>`select id, name, file_name, storage_key, file_size, created_at from course_resources
                    where course_id = ${courseId} and resource_type = 'FILE' and storage_key is not null order by created_at, id`,
  ])
  const fileHref = new Map(files.map((f) => [f.id, `web_resources/${f.id}/${safeName(f.file_name ?? f.name)}`]))
  /** Links to the course's files → the files in the package. */
  const portable = (html: string) =>
    html.replace(/\/api\/v1\/resources\/([0-9a-f-]{36})\/file/g, (m, id: string) => (fileHref.has(id) ? `$IMS-CC-FILEBASE$/${fileHref.get(id)!.slice('web_resources/'.length)}` : m))

  const docs: { name: string; body: string }[] = []
  const resources: string[] = []
  /** Canvas's rubric documents (course_settings/rubrics.xml), one per homework with a rubric. */
  const rubrics: string[] = []
  const itemOf = (t: TaskRow): string => {
    const id = t.id
    const title = `<title>${esc(t.title)}</title>`
    if (t.task_type === 'MEDIA' && t.material_type === 'FILE' && t.resource_id && fileHref.has(t.resource_id)) {
      return `<item identifier="I_${id}" identifierref="F_${t.resource_id}">${title}</item>`
    }
    if (t.task_type === 'MEDIA' && t.material_type === 'LINK' && t.url) {
      const path = `links/${id}.xml`
      docs.push({ name: path, body: `<?xml version="1.0" encoding="UTF-8"?>\n<webLink xmlns="http://www.imsglobal.org/xsd/imsccv1p1/imswl_v1p1"><title>${esc(t.title)}</title><url href="${esc(t.url)}"/></webLink>\n` })
      resources.push(`<resource identifier="R_${id}" type="imswl_xmlv1p1"><file href="${path}"/></resource>`)
      return `<item identifier="I_${id}" identifierref="R_${id}">${title}</item>`
    }
    const dates = (extra = '') =>
      `${t.start_at ? `<unlock_at>${t.start_at.toISOString()}</unlock_at>` : ''}${t.due_at ? `<due_at>${t.due_at.toISOString()}</due_at>` : ''}${extra}`
    if (t.task_type === 'QUIZ') {
      const path = `assessments/${id}/assessment_qti.xml`
      docs.push({ name: path, body: qti(t) })
      const deps: string[] = []
      if (t.task_kind === 'HOMEWORK') {
        const meta = `assessments/${id}/assessment_meta.xml`
        docs.push({ name: meta, body: `<?xml version="1.0" encoding="UTF-8"?>\n<quiz xmlns="http://canvas.instructure.com/xsd/cccv1p0" identifier="R_${id}"><title>${esc(t.title)}</title>${dates()}<available>${t.publish_state === 'DRAFT' ? 'false' : 'true'}</available><points_possible>${t.questions.reduce((s, q) => s + q.points, 0)}</points_possible></quiz>\n` })
        resources.push(`<resource identifier="M_${id}" type="associatedcontent/imscc_xmlv1p1/learning-application-resource" href="${meta}"><file href="${meta}"/></resource>`)
        deps.push(`<dependency identifierref="M_${id}"/>`)
      }
      resources.push(`<resource identifier="R_${id}" type="imsqti_xmlv1p2/imscc_xmlv1p1/assessment"><file href="${path}"/>${deps.join('')}</resource>`)
      return `<item identifier="I_${id}" identifierref="R_${id}">${title}</item>`
    }
    const html = `<!DOCTYPE html>\n<html><head><meta charset="utf-8"/><title>${esc(t.title)}</title></head><body>\n${portable(t.content)}\n</body></html>\n`
    if (t.task_kind === 'HOMEWORK') {
      const page = `assignments/${id}/${id}.html`
      const settings = `assignments/${id}/assignment_settings.xml`
      docs.push({ name: page, body: html })
      const rubric = t.rubric?.criteria.length ? rubricXml(`RB_${id}`, t.title, t.rubric) : null
      if (rubric) rubrics.push(rubric)
      const rubricRef = rubric ? `<rubric_identifierref>RB_${id}</rubric_identifierref><rubric_use_for_grading>true</rubric_use_for_grading>` : ''
      docs.push({ name: settings, body: `<?xml version="1.0" encoding="UTF-8"?>\n<assignment xmlns="http://canvas.instructure.com/xsd/cccv1p0" identifier="R_${id}"><title>${esc(t.title)}</title>${dates()}<workflow_state>${t.publish_state === 'DRAFT' ? 'unpublished' : 'published'}</workflow_state><submission_types>online_upload,online_text_entry</submission_types>${rubricRef}</assignment>\n` })
      resources.push(`<resource identifier="R_${id}" type="associatedcontent/imscc_xmlv1p1/learning-application-resource" href="${page}"><file href="${page}"/><file href="${settings}"/></resource>`)
      return `<item identifier="I_${id}" identifierref="R_${id}">${title}</item>`
    }
    const page = `pages/${id}.html`
    docs.push({ name: page, body: html })
    resources.push(`<resource identifier="R_${id}" type="webcontent" href="${page}"><file href="${page}"/></resource>`)
    return `<item identifier="I_${id}" identifierref="R_${id}">${title}</item>`
  }

  const tasksByPoint = new Map<string, TaskRow[]>()
  for (const t of tasks) tasksByPoint.set(t.point_id, [...(tasksByPoint.get(t.point_id) ?? []), t])
  const items = units
    .map((u) => {
      const mine = points.filter((p) => p.unit_id === u.id)
      const inner = mine
        .map((p) => `<item identifier="P_${p.id}"><title>${esc(p.title)}</title>${(tasksByPoint.get(p.id) ?? []).map(itemOf).join('')}</item>`)
        .join('')
      return `<item identifier="U_${u.id}"><title>${esc(u.title)}</title>${inner}</item>`
    })
    .join('\n')
  if (rubrics.length) {
    // Canvas's layout: the course's rubrics in one document of its extension namespace, named by
    // each assignment's settings (rubric_identifierref); a resource of its own outside the
    // organization, as Canvas lists its course_settings files.
    docs.push({ name: RUBRICS, body: `<?xml version="1.0" encoding="UTF-8"?>\n<rubrics xmlns="${CANVAS}">\n${rubrics.join('\n')}\n</rubrics>\n` })
    resources.push(`<resource identifier="CS_${courseId}" type="associatedcontent/imscc_xmlv1p1/learning-application-resource" href="${RUBRICS}"><file href="${RUBRICS}"/></resource>`)
  }
  for (const f of files) {
    resources.push(`<resource identifier="F_${f.id}" type="webcontent" href="${esc(fileHref.get(f.id)!)}"><file href="${esc(fileHref.get(f.id)!)}"/></resource>`)
  }
  const manifest = `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="C_${courseId}" xmlns="${NS}" xmlns:lomimscc="${LOMM}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="${NS} http://www.imsglobal.org/profile/cc/ccv1p1/ccv1p1_imscp_v1p2_v1p0.xsd ${LOMM} http://www.imsglobal.org/profile/cc/ccv1p1/LOM/ccv1p1_lommanifest_v1p0.xsd">
<metadata><schema>IMS Common Cartridge</schema><schemaversion>1.1.0</schemaversion><lomimscc:lom><lomimscc:general><lomimscc:title><lomimscc:string>${esc(course?.title ?? '')}</lomimscc:string></lomimscc:title>${course?.description ? `<lomimscc:description><lomimscc:string>${esc(course.description)}</lomimscc:string></lomimscc:description>` : ''}</lomimscc:general></lomimscc:lom></metadata>
<organizations><organization identifier="O_1" structure="rooted-hierarchy"><item identifier="ROOT">
${items}
</item></organization></organizations>
<resources>
${resources.join('\n')}
</resources>
</manifest>
`
  async function* entries() {
    yield { name: 'imsmanifest.xml', input: manifest, lastModified: now }
    for (const d of docs) yield { name: d.name, input: d.body, lastModified: now }
    for (const f of files) {
      const body = await storage.open(f.storage_key!)
      if (!body) continue
      yield { name: fileHref.get(f.id)!, input: body instanceof Blob ? chunksOf(body) : body, lastModified: f.created_at, size: Number(f.file_size ?? 0) }
    }
  }
  const title = (course?.title ?? 'course').replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_').trim().slice(0, 100) || 'course'
  return { fileName: `${title}.imscc`, body: makeZip(entries()) }
}

/**
 * A homework's rubric as Canvas exports one (its CC::Rubrics): per criterion its title
 * (`description`), text (`long_description`), best points and ratings; per rating its title,
 * text and points, in the rubric's order. Ids are ours (criterion_id, id), which Canvas keeps as
 * migration ids.
 */
function rubricXml(identifier: string, title: string, rubric: Rubric): string {
  const best = (c: Rubric['criteria'][number]) => Math.max(...c.levels.map((l) => l.points))
  const criteria = rubric.criteria.map((c) => {
    const ratings = c.levels
      .map((l) => `<rating><description>${esc(l.title)}</description><points>${l.points}</points><criterion_id>${c.id}</criterion_id>${l.description ? `<long_description>${esc(l.description)}</long_description>` : ''}<id>${l.id}</id></rating>`)
      .join('')
    return `<criterion><criterion_id>${c.id}</criterion_id><points>${best(c)}</points><description>${esc(c.title)}</description>${c.description ? `<long_description>${esc(c.description)}</long_description>` : ''}<ratings>${ratings}</ratings></criterion>`
  })
  const possible = Math.round(rubric.criteria.reduce((a, c) => a + best(c), 0) * 100) / 100
  return `<rubric identifier="${identifier}"><read_only>false</read_only><title>${esc(title)}</title><reusable>false</reusable><public>false</public><points_possible>${possible}</points_possible><hide_score_total>false</hide_score_total><free_form_criterion_comments>false</free_form_criterion_comments><criteria>${criteria.join('')}</criteria></rubric>`
}

/** A quiz as a QTI 1.2 assessment (the CC 1.1 profile): each question an item with its key and cc_weighting. */
function qti(t: TaskRow): string {
  const items = t.questions.map((q, n) => {
    const profile = q.type === 'SHORT_ANSWER' ? 'cc.essay.v0p1' : q.type === 'MULTIPLE_CHOICE' ? 'cc.multiple_response.v0p1' : 'cc.multiple_choice.v0p1'
    const meta = `<itemmetadata><qtimetadata><qtimetadatafield><fieldlabel>cc_profile</fieldlabel><fieldentry>${profile}</fieldentry></qtimetadatafield><qtimetadatafield><fieldlabel>cc_weighting</fieldlabel><fieldentry>${q.points}</fieldentry></qtimetadatafield></qtimetadata></itemmetadata>`
    const stem = `<material><mattext texttype="text/plain">${esc(q.stem)}</mattext></material>`
    if (q.type === 'SHORT_ANSWER') {
      return `<item ident="Q_${n + 1}" title="Question ${n + 1}">${meta}<presentation>${stem}<response_str ident="response1" rcardinality="Single"><render_fib/></response_str></presentation></item>`
    }
    const labels = q.options.map((o, i) => `<response_label ident="A${i}"><material><mattext texttype="text/plain">${esc(o)}</mattext></material></response_label>`).join('')
    const correct = q.correctOptions.map((i) => `<varequal respident="response1">A${i}</varequal>`)
    const wrong = q.options.map((_, i) => i).filter((i) => !q.correctOptions.includes(i)).map((i) => `<not><varequal respident="response1">A${i}</varequal></not>`)
    const condition = q.type === 'MULTIPLE_CHOICE' ? `<and>${correct.join('')}${wrong.join('')}</and>` : correct.join('')
    return `<item ident="Q_${n + 1}" title="Question ${n + 1}">${meta}<presentation>${stem}<response_lid ident="response1" rcardinality="${q.type === 'MULTIPLE_CHOICE' ? 'Multiple' : 'Single'}"><render_choice>${labels}</render_choice></response_lid></presentation><resprocessing><outcomes><decvar varname="SCORE" vartype="Decimal" minvalue="0" maxvalue="100"/></outcomes><respcondition continue="No"><conditionvar>${condition}</conditionvar><setvar varname="SCORE" action="Set">100</setvar></respcondition></resprocessing></item>`
  })
  return `<?xml version="1.0" encoding="UTF-8"?>
<questestinterop xmlns="http://www.imsglobal.org/xsd/ims_qtiasiv1p2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.imsglobal.org/xsd/ims_qtiasiv1p2 http://www.imsglobal.org/profile/cc/ccv1p1/ccv1p1_qtiasiv1p2p1_v1p0.xsd">
<assessment ident="A_${t.id}" title="${esc(t.title)}"><qtimetadata><qtimetadatafield><fieldlabel>cc_profile</fieldlabel><fieldentry>cc.exam.v0p1</fieldentry></qtimetadatafield><qtimetadatafield><fieldlabel>qmd_assessmenttype</fieldlabel><fieldentry>Examination</fieldentry></qtimetadatafield></qtimetadata>
<section ident="S_1">${items.join('\n')}</section></assessment>
</questestinterop>
`
}
