import { formatNumber } from '../i18n/format.ts'
import { useT } from '../i18n/index.ts'
import type { Task } from '../types.ts'
import { Badge } from '../ui/Badge.tsx'
import { WORKSPACE } from './messages.ts'

type Rubric = NonNullable<Task['rubric']>

/**
 * The rubric as a student sees it (issue 54): before handing in, every criterion with its levels
 * and points; once a grade by rubric is released (`choices`, which the API sends only then), the
 * level the teacher picked per criterion is marked, with the points it gave.
 */
export function RubricView({ rubric, choices }: { rubric: Rubric; choices: readonly { criterionId: string; levelId: string }[] }) {
  const { t } = useT(WORKSPACE)
  const picked = new Map(choices.map((c) => [c.criterionId, c.levelId]))
  const graded = picked.size > 0
  const got = rubric.criteria.reduce((n, c) => n + (c.levels.find((l) => l.id === picked.get(c.id))?.points ?? 0), 0)
  const best = rubric.criteria.reduce((n, c) => n + Math.max(0, ...c.levels.map((l) => l.points)), 0)
  return (
    <section className="rubric-view" aria-label={t('rubric.title')} data-testid="rubric-view">
      <p className="label">{graded ? t('rubric.yourLevels', { got: formatNumber(got, 2), best: formatNumber(best, 2) }) : t('rubric.title')}</p>
      {!graded && <p className="hint">{t('rubric.before')}</p>}
      <ol className="rubric-criteria">
        {rubric.criteria.map((c) => (
          <li key={c.id}>
            <strong>{c.title}</strong> <span className="meta">({t('rubric.upTo', { points: formatNumber(Math.max(0, ...c.levels.map((l) => l.points)), 2) })})</span>
            {c.description && <p className="hint">{c.description}</p>}
            <ul className="rubric-levels">
              {c.levels.map((l) => {
                const chosen = picked.get(c.id) === l.id
                return (
                  <li key={l.id} className={chosen ? 'rubric-level rubric-chosen' : 'rubric-level'} data-chosen={chosen ? 'true' : undefined}>
                    {t('rubric.level', { count: l.points, title: l.title, points: formatNumber(l.points, 2) })}
                    {l.description && <span className="meta"> — {l.description}</span>}
                    {chosen && (
                      <>
                        {' '}
                        <Badge tone="ok">{t('rubric.chosen')}</Badge>
                      </>
                    )}
                  </li>
                )
              })}
            </ul>
          </li>
        ))}
      </ol>
    </section>
  )
}
