import { Link } from 'react-router'
import { roundScore } from '../../../lib/score.ts'
import { API_BASE } from '../api.ts'
import { formatDate, formatNumber } from '../i18n/format.ts'
import { useT } from '../i18n/index.ts'
import { useGrades, useLearningOverview } from '../queries.ts'
import type { GradeColumn, GradeOverviewRow } from '../types.ts'
import { TableWrap } from '../ui/form.tsx'
import { Empty, QueryView } from '../ui/Notice.tsx'
import { LearningOverviewTable } from '../workspace/sections.tsx'
import { NS } from './messages.ts'
import type { TabProps } from './types.ts'

/** One rule on screen and in the CSV: `roundScore` (one decimal, half up), shared with the server. */
const shown = (score: number | null | undefined) => formatNumber(roundScore(score), 1)

/** The gradebook: a row per student, a column per homework/quiz and per experiment. */
export function GradesTab({ course }: TabProps) {
  const { t } = useT(NS)
  const grades = useGrades(course.id)
  const learning = useLearningOverview(course.id)

  function cell(r: GradeOverviewRow, c: GradeColumn) {
    const score = r.cells[c.id]
    if (score != null) return shown(score)
    if (c.kind === 'EXPERIMENT') {
      const e = r.experiments.find((x) => x.experimentId === c.id)
      return <span className="meta">{e ? t('gradebook.notGraded') : t('gradebook.notSubmitted')}</span>
    }
    return <span className="meta">{t('gradebook.noScore')}</span>
  }

  return (
    <>
      <p>
        <a className="btn" href={`${API_BASE}/courses/${course.id}/grades/overview.csv`} download>
          {t('gradebook.csv')}
        </a>
      </p>
      <QueryView query={grades} loading={t('gradebook.loading')}>
        {({ columns, students }) => {
          if (students.length === 0) return <Empty>{t('gradebook.noStudents')}</Empty>
          return (
            <>
              <TableWrap label={t('gradebook.table')}>
                <table data-testid="grade-overview" className="gradebook">
                  <thead>
                    <tr>
                      <th scope="col">{t('gradebook.student')}</th>
                      <th scope="col">{t('gradebook.submissions')}</th>
                      <th scope="col">{t('gradebook.graded')}</th>
                      <th scope="col">{t('gradebook.average')}</th>
                      {columns.map((c) => (
                        <th scope="col" key={c.id} data-column={c.id}>
                          <Link to={c.kind === 'TASK' ? `?tab=grading&taskId=${c.id}` : `?tab=grading&experimentId=${c.id}`}>{c.title}</Link>
                          <span className="meta column-meta">
                            {c.kind === 'TASK' ? t('gradebook.task') : t('gradebook.experiment')}
                            {c.dueAt ? ` · ${t('gradebook.due', { when: formatDate(c.dueAt) })}` : ''}
                          </span>
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {students.map((r) => (
                      <tr key={r.userId}>
                        <th scope="row">
                          {r.displayName || r.username} <span className="meta">@{r.username}</span>
                        </th>
                        <td>{r.submissionCount}</td>
                        <td>{r.gradedCount}</td>
                        <td data-testid="average">{shown(r.averageScore)}</td>
                        {columns.map((c) => (
                          <td key={c.id}>{cell(r, c)}</td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
              <p className="hint">{t('gradebook.rounding')}</p>
            </>
          )
        }}
      </QueryView>
      <h3>{t('gradebook.progress')}</h3>
      <QueryView query={learning}>{(rows) => <LearningOverviewTable rows={rows} />}</QueryView>
    </>
  )
}
