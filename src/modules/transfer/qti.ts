import { arr, attr, text, type XNode } from './xml.ts'
import { plainOf, type PlanQuestion, type Skipped } from './plan.ts'

/**
 * QTI 1.2 items (Common Cartridge assessments, Canvas quizzes) → questions: multiple choice with
 * one answer → SINGLE_CHOICE, with several → MULTIPLE_CHOICE, true/false → SINGLE_CHOICE, short
 * answers (fill in the blank) and essays → SHORT_ANSWER; points from Canvas's points_possible or
 * the cc weighting, else 1. Anything else is skipped with its reason.
 */
function meta(item: XNode): Map<string, string> {
  const out = new Map<string, string>()
  for (const f of arr(item?.itemmetadata?.qtimetadata?.qtimetadatafield)) out.set(text(f.fieldlabel), text(f.fieldentry))
  return out
}

function allItems(node: XNode | undefined): XNode[] {
  if (!node || typeof node !== 'object') return []
  const out: XNode[] = [...arr(node.item)]
  for (const s of arr(node.section)) out.push(...allItems(s))
  return out
}

function matText(m: unknown): string {
  const mats = arr<XNode>(m)
  return mats
    .flatMap((x) => arr<XNode>(x?.mattext).map((t) => (attr(t, 'texttype') === 'text/plain' && !/<[a-z]/i.test(text(t)) ? text(t) : plainOf(text(t)))))
    .join('\n')
    .trim()
}

/** The idents a correct response names (score set above zero). */
function correctIdents(item: XNode): Set<string> {
  const out = new Set<string>()
  for (const rc of arr(item?.resprocessing?.respcondition)) {
    const sets = arr(rc.setvar)
    const positive = sets.some((s) => Number(text(s)) > 0 && attr(s, 'action') !== 'Subtract')
    if (!positive) continue
    const cv = rc.conditionvar ?? {}
    for (const v of arr(cv.varequal)) out.add(text(v))
    for (const v of arr(cv.and?.varequal)) out.add(text(v))
  }
  return out
}

export function qtiQuestions(doc: XNode, skipped: Skipped[], quizTitle: string): { title: string; questions: PlanQuestion[] } {
  const root = doc.questestinterop ?? {}
  const assessment = arr(root.assessment)[0] ?? root.objectbank ?? root
  const title = attr(assessment, 'title')
  const questions: PlanQuestion[] = []
  for (const item of allItems(assessment)) {
    const m = meta(item)
    const profile = (m.get('cc_profile') || m.get('question_type') || '').toLowerCase()
    const points = Number(m.get('points_possible') ?? m.get('cc_weighting') ?? '1') || 1
    const stem = matText(item?.presentation?.material) || matText(arr(item?.presentation?.flow).map((f: XNode) => f.material)) || attr(item, 'title')
    const label = stem.slice(0, 80) || attr(item, 'title') || quizTitle
    const lid = arr(item?.presentation?.response_lid)[0] ?? arr(item?.presentation?.flow).map((f: XNode) => f.response_lid).find(Boolean)
    const labels = arr(lid?.render_choice?.response_label)
    if (/essay|short_answer|fib|fill_in|text_only_question/.test(profile) && !/multiple|matching|numerical|calculated/.test(profile)) {
      if (profile.includes('text_only')) {
        skipped.push({ kind: 'question', title: label, reason: 'A text-only item is not a question.' })
        continue
      }
      questions.push({ type: 'SHORT_ANSWER', stem, options: [], correctOptions: [], points })
      continue
    }
    if (/multiple_choice|multiple_response|multiple_answers|true_false|multiplechoice|truefalse/.test(profile) || (!profile && labels.length)) {
      const options = labels.map((l) => matText(l.material) || attr(l, 'ident'))
      const correct = correctIdents(item)
      const correctOptions = labels.map((l, i) => (correct.has(attr(l, 'ident')) ? i : -1)).filter((i) => i >= 0)
      const single = attr(lid, 'rcardinality') !== 'Multiple' && correctOptions.length <= 1
      questions.push({ type: single ? 'SINGLE_CHOICE' : 'MULTIPLE_CHOICE', stem, options, correctOptions, points })
      continue
    }
    skipped.push({ kind: 'question', title: label, reason: `This question type (${profile || 'unknown'}) has no equivalent here.` })
  }
  return { title, questions }
}
