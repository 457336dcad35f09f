import { API_BASE } from '../api.ts'
import type { TabProps } from './types.ts'
import { useGrades, useLearningOverview } from '../queries.ts'
import { TableWrap } from '../ui/form.tsx'
import { Empty, QueryView } from '../ui/Notice.tsx'
import { formatScore } from '../ui/time.tsx'
import { LearningOverviewTable } from '../workspace/sections.tsx'

export function GradesTab({ course }: TabProps) {
  const grades = useGrades(course.id)
  const learning = useLearningOverview(course.id)
  return (
    <>
      <p>
        <a className="btn" href={`${API_BASE}/courses/${course.id}/grades/overview.csv`} download>
          Download as CSV
        </a>
      </p>
      <QueryView query={grades} loading="Loading grades…">
        {(rows) => {
          if (rows.length === 0) return <Empty>No students yet.</Empty>
          const experiments = [...new Map(rows.flatMap((r) => r.experiments).map((e) => [e.experimentId, e.title])).entries()]
          return (
            <TableWrap label="Grade overview">
              <table data-testid="grade-overview">
                <thead>
                  <tr>
                    <th scope="col">Student</th>
                    <th scope="col">Submissions</th>
                    <th scope="col">Graded</th>
                    <th scope="col">Average</th>
                    {experiments.map(([id, title]) => (
                      <th scope="col" key={id}>
                        {title}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r) => (
                    <tr key={r.userId}>
                      <th scope="row">
                        {r.displayName || r.username} <span className="meta">@{r.username}</span>
                      </th>
                      <td>{r.submissionCount}</td>
                      <td>{r.gradedCount}</td>
                      <td>{formatScore(r.averageScore)}</td>
                      {experiments.map(([id]) => {
                        const e = r.experiments.find((x) => x.experimentId === id)
                        return <td key={id}>{!e?.submissionId ? 'not submitted' : e.score == null ? 'not graded' : formatScore(e.score)}</td>
                      })}
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )
        }}
      </QueryView>
      <h3>Learning progress</h3>
      <QueryView query={learning}>{(rows) => <LearningOverviewTable rows={rows} />}</QueryView>
    </>
  )
}
