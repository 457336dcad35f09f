import { useMemo, useState } from 'react'
import { Link } from 'react-router'
import { roundScore } from '../../../lib/score.ts'
import { API_BASE } from '../api.ts'
import { formatDate, formatNumber } from '../i18n/format.ts'
import { useT } from '../i18n/index.ts'
import { useGrades, useLearningOverview } from '../queries.ts'
import type { GradeColumn, GradeOverviewRow } from '../types.ts'
import { Badge } from '../ui/Badge.tsx'
import { TableWrap, TextField } from '../ui/form.tsx'
import { Empty, QueryView } from '../ui/Notice.tsx'
import { LearningOverviewTable } from '../workspace/sections.tsx'
import { NS } from './messages.ts'
import type { TabProps } from './types.ts'

/** One rule on screen and in the CSV: `roundScore` (one decimal, half up), shared with the server. */
const shown = (score: number | null | undefined) => formatNumber(roundScore(score), 1)

/** What a gradebook column is, in the reader's words (issue 27.9: not "Homework or quiz"). */
export const columnKindKey = (c: Pick<GradeColumn, 'kind' | 'taskKind' | 'taskType'>) =>
  c.kind === 'EXPERIMENT' ? 'gradebook.experiment' : c.taskKind === 'HOMEWORK' ? (c.taskType === 'QUIZ' ? 'gradebook.homeworkQuiz' : 'gradebook.homework') : 'gradebook.quiz'

type SortKey = 'name' | 'submissions' | 'graded' | 'average' | `col:${string}`
interface Sort {
  key: SortKey
  dir: 'asc' | 'desc'
}

const who = (r: GradeOverviewRow) => r.displayName || r.username

/**
 * The value a row sorts by; null sorts last in either direction. A cell without a score sorts
 * by why it has none: not graded before missing before nothing due yet.
 */
function sortValue(r: GradeOverviewRow, key: SortKey): number | string | null {
  if (key === 'name') return who(r).toLocaleLowerCase()
  if (key === 'submissions') return r.submissionCount
  if (key === 'graded') return r.gradedCount
  if (key === 'average') return r.averageScore
  const id = key.slice(4)
  const score = r.cells[id]
  if (score != null) return score
  const status = r.status[id]
  return status === 'NOT_GRADED' ? -1 : status === 'MISSING' ? -2 : null
}

function sortRows(rows: GradeOverviewRow[], sort: Sort | null): GradeOverviewRow[] {
  if (!sort) return rows
  const sign = sort.dir === 'asc' ? 1 : -1
  // The service's order (name, then username) breaks ties: a stable sort keeps it.
  return [...rows].sort((a, b) => {
    const x = sortValue(a, sort.key)
    const y = sortValue(b, sort.key)
    if (x === y) return 0
    if (x == null) return 1
    if (y == null) return -1
    return (typeof x === 'string' ? x.localeCompare(y as string) : x - (y as number)) * sign
  })
}

/** A cell: the score, or why there is none (Not graded, Missing), and Late when handed in after the due time. */
function Cell({ r, c }: { r: GradeOverviewRow; c: GradeColumn }) {
  const { t } = useT(NS)
  const score = r.cells[c.id]
  const status = r.status[c.id]
  const late = r.late.includes(c.id) ? (
    <Badge tone="warn">
      <span data-status="LATE">{t('gradebook.late')}</span>
    </Badge>
  ) : null
  if (score != null)
    return late ? (
      <>
        {shown(score)} {late}
      </>
    ) : (
      shown(score)
    )
  if (status === 'NOT_GRADED')
    return (
      <>
        <Badge tone="info">
          <span data-status="NOT_GRADED">{t('gradebook.notGraded')}</span>
        </Badge>{' '}
        {late}
      </>
    )
  if (status === 'MISSING')
    return (
      <Badge tone="danger">
        <span data-status="MISSING">{t('gradebook.missing')}</span>
      </Badge>
    )
  return (
    <span className="meta">
      <span aria-hidden="true">{t('gradebook.noScore')}</span>
      <span className="sr-only">{t('gradebook.nothingYet')}</span>
    </span>
  )
}

function SortButton({ k, label, sort, setSort }: { k: SortKey; label: string; sort: Sort | null; setSort: (s: Sort) => void }) {
  const { t } = useT(NS)
  const active = sort?.key === k
  const next: Sort = active && sort!.dir === 'asc' ? { key: k, dir: 'desc' } : { key: k, dir: 'asc' }
  return (
    <button type="button" className="sort-button" onClick={() => setSort(next)} aria-label={t('gradebook.sortBy', { column: label })}>
      <span aria-hidden="true">{active ? (sort!.dir === 'asc' ? '▲' : '▼') : '↕'}</span>
    </button>
  )
}

/** The gradebook: a row per student, a column per homework/quiz and per experiment; sticky header and names, sort, filter. */
export function GradesTab({ course }: TabProps) {
  const { t } = useT(NS)
  const grades = useGrades(course.id)
  const learning = useLearningOverview(course.id)
  return (
    <>
      <p>
        <a className="btn" href={`${API_BASE}/courses/${course.id}/grades/overview.csv`} download>
          {t('gradebook.csv')}
        </a>
      </p>
      <QueryView query={grades} loading={t('gradebook.loading')}>
        {({ columns, students }) => <Gradebook columns={columns} students={students} />}
      </QueryView>
      <h3>{t('gradebook.progress')}</h3>
      <QueryView query={learning}>{(rows) => <LearningOverviewTable rows={rows} />}</QueryView>
    </>
  )
}

function Gradebook({ columns, students }: { columns: GradeColumn[]; students: GradeOverviewRow[] }) {
  const { t } = useT(NS)
  const [filter, setFilter] = useState('')
  const [sort, setSort] = useState<Sort | null>(null)
  const needle = filter.trim().toLocaleLowerCase()
  const rows = useMemo(
    () => sortRows(needle ? students.filter((r) => r.displayName.toLocaleLowerCase().includes(needle) || r.username.toLocaleLowerCase().includes(needle)) : students, sort),
    [students, needle, sort],
  )
  const ariaSort = (k: SortKey) => (sort?.key === k ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined)
  const sorter = (k: SortKey, label: string) => <SortButton k={k} label={label} sort={sort} setSort={setSort} />
  if (students.length === 0) return <Empty>{t('gradebook.noStudents')}</Empty>
  return (
    <>
      <div className="gradebook-tools">
        <TextField label={t('gradebook.filter')} type="search" value={filter} onChange={(e) => setFilter(e.target.value)} autoComplete="off" />
        <p className="meta" role="status" data-testid="gradebook-count">
          {needle ? t('gradebook.showing', { n: rows.length, total: students.length }) : t('gradebook.studentCount', { count: students.length })}
        </p>
      </div>
      <TableWrap label={t('gradebook.table')}>
        <table data-testid="grade-overview" className="gradebook">
          <thead>
            <tr>
              <th scope="col" aria-sort={ariaSort('name')}>
                {t('gradebook.student')} {sorter('name', t('gradebook.student'))}
              </th>
              <th scope="col" aria-sort={ariaSort('submissions')}>
                {t('gradebook.submissions')} {sorter('submissions', t('gradebook.submissions'))}
              </th>
              <th scope="col" aria-sort={ariaSort('graded')}>
                {t('gradebook.graded')} {sorter('graded', t('gradebook.graded'))}
              </th>
              <th scope="col" aria-sort={ariaSort('average')}>
                {t('gradebook.average')} {sorter('average', t('gradebook.average'))}
              </th>
              {columns.map((c) => (
                <th scope="col" key={c.id} data-column={c.id} aria-sort={ariaSort(`col:${c.id}`)}>
                  <Link to={c.kind === 'TASK' ? `?tab=grading&taskId=${c.id}` : `?tab=grading&experimentId=${c.id}`}>{c.title}</Link>{' '}
                  {sorter(`col:${c.id}`, c.title)}
                  <span className="meta column-meta" data-testid="column-kind">
                    {t(columnKindKey(c))}
                    {c.dueAt ? ` · ${t('gradebook.due', { when: formatDate(c.dueAt) })}` : ''}
                  </span>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.userId}>
                <th scope="row" className="gradebook-name">
                  <span className="student-name">{r.displayName || r.username}</span>
                  <span className="meta student-username" title={`@${r.username}`}>
                    @{r.username}
                  </span>
                </th>
                <td>{r.submissionCount}</td>
                <td>{r.gradedCount}</td>
                <td data-testid="average">{shown(r.averageScore)}</td>
                {columns.map((c) => (
                  <td key={c.id} data-cell={c.id}>
                    <Cell r={r} c={c} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {rows.length === 0 && <Empty>{t('gradebook.noMatch')}</Empty>}
      <p className="hint">{t('gradebook.legend')}</p>
      <p className="hint">{t('gradebook.rounding')}</p>
    </>
  )
}
