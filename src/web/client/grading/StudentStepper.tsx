import { useEffect, useReducer, useRef, type ReactNode } from 'react'
import { useSearchParams } from 'react-router'
import { useT } from '../i18n/index.ts'
import { NS } from '../manage/messages.ts'
import { useUnsavedChanges } from '../manage/useUnsavedChanges.ts'
import { useMe } from '../queries.ts'
import { Badge } from '../ui/Badge.tsx'
import { draftStorageKey, readDraft } from '../ui/useDraft.ts'
import { gradeDraftKey, onGradeDraftsChange } from './useGradeDraft.ts'

export interface StepperEntry {
  /** The student's user id (the `student` URL parameter). */
  id: string
  name: string
  /** Badges after the name in the roster. */
  badges: ReactNode
  /** The submission being graded, whose unsaved grade draft marks the student "Unsaved". */
  submissionId: string | null
}

const typingInto = (el: EventTarget | null) =>
  el instanceof HTMLElement &&
  (el.isContentEditable || ['TEXTAREA', 'SELECT'].includes(el.tagName) || (el instanceof HTMLInputElement && el.type !== 'radio' && el.type !== 'checkbox'))

/** Only the student changes: the page stays, and unsaved grades stay as drafts. */
const onlyStudentChanges = (a: { pathname: string; search: string }, b: { pathname: string; search: string }) => {
  if (a.pathname !== b.pathname) return false
  const x = new URLSearchParams(a.search)
  const y = new URLSearchParams(b.search)
  x.delete('student')
  y.delete('student')
  x.sort()
  y.sort()
  return x.toString() === y.toString()
}

/**
 * Grading one student at a time (quizzes, homework and experiments alike): the roster of every
 * student, Previous/Next buttons and the J/K keys, the selection in the URL (`student`).
 * Typed but unsaved grades are kept per submission (grading/useGradeDraft.ts) when moving
 * between students and marked "Unsaved" in the roster; leaving the page with any of them asks first.
 */
export function StudentStepper({ entries, summary, children }: { entries: StepperEntry[]; summary: ReactNode; children: (e: StepperEntry, nav: { next: () => void }) => ReactNode }) {
  const { t } = useT(NS)
  const [params, setParams] = useSearchParams()
  const me = useMe().data
  const [, redraw] = useReducer((n: number) => n + 1, 0)
  useEffect(() => onGradeDraftsChange(redraw), [])
  const unsaved = (e: StepperEntry) => !!me && !!e.submissionId && readDraft(draftStorageKey(me.id, gradeDraftKey(e.submissionId))) !== undefined
  const anyUnsaved = entries.some(unsaved)
  useUnsavedChanges(anyUnsaved, onlyStudentChanges)

  const selectedId = params.get('student') ?? entries[0]?.id ?? ''
  const index = Math.max(0, entries.findIndex((e) => e.id === selectedId))
  const current = entries[index]
  // The chosen student stays in view in a long roster (it scrolls on its own).
  const currentItem = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    const el = currentItem.current
    const list = el?.closest('ul')
    if (!el || !list) return
    const top = el.offsetTop - list.offsetTop
    if (top < list.scrollTop) list.scrollTop = top
    else if (top + el.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + el.offsetHeight - list.clientHeight
  }, [index])

  function select(i: number) {
    const e = entries[i]
    if (!e) return
    const next = new URLSearchParams(params)
    next.set('student', e.id)
    setParams(next, { replace: true })
  }

  // J / K move between students, as in Gmail and Canvas SpeedGrader's keyboard use; never while typing.
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      if (e.altKey || e.ctrlKey || e.metaKey || typingInto(e.target)) return
      if (e.key === 'j') select(index + 1)
      else if (e.key === 'k') select(index - 1)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  })

  return (
    <div className="grading-layout">
      <nav className="grading-roster" aria-label={t('grading.students')}>
        <p className="meta" data-testid="grading-summary">
          {summary}
        </p>
        <ul className="plain" data-testid="grading-roster">
          {entries.map((e, i) => (
            <li key={e.id}>
              <button
                type="button"
                className="roster-item"
                ref={i === index ? currentItem : undefined}
                aria-current={i === index ? 'true' : undefined}
                onClick={() => select(i)}
              >
                <span className="roster-name">{e.name}</span> {e.badges}
                {unsaved(e) && (
                  <>
                    {' '}
                    <Badge tone="warn">{t('grading.unsaved')}</Badge>
                  </>
                )}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      {current && (
        <section className="grading-sheet" aria-label={current.name} data-testid="grading-sheet">
          <div className="grading-nav">
            <button type="button" className="btn btn-small" onClick={() => select(index - 1)} disabled={index === 0} aria-keyshortcuts="k">
              ← {t('grading.previous')}
            </button>
            <span className="meta">{t('grading.position', { n: index + 1, total: entries.length })}</span>
            <button type="button" className="btn btn-small" onClick={() => select(index + 1)} disabled={index === entries.length - 1} aria-keyshortcuts="j">
              {t('grading.next')} →
            </button>
          </div>
          <p className="hint">{t('grading.keys')}</p>
          <h3>{current.name}</h3>
          {children(current, { next: () => select(index + 1) })}
        </section>
      )}
    </div>
  )
}
