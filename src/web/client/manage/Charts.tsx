import { useQuery } from '@tanstack/react-query'
import { useSearchParams } from 'react-router'
import { get } from '../api.ts'
import { formatDate, formatNumber } from '../i18n/format.ts'
import { useT } from '../i18n/index.ts'
import { useLearning } from '../queries.ts'
import type { HandInTimeline, QuestionCorrectness, ScoreDistribution, Task, TotalsDistribution } from '../types.ts'
import { BarChart } from '../ui/BarChart.tsx'
import { SelectField } from '../ui/form.tsx'
import { Empty, ErrorNotice, Loading } from '../ui/Notice.tsx'
import { allTasks } from '../workspace/sections.tsx'
import { isGradable } from './Grading.tsx'
import { NS } from './messages.ts'
import type { TabProps } from './types.ts'

const enc = encodeURIComponent
/** Chart answers change with every grade: always asked again when the tab is shown. */
const useChart = <T,>(path: string, enabled = true) => useQuery({ queryKey: ['analytics', path], queryFn: () => get<T>(path), enabled, staleTime: 0 })

const bucketLabel = (b: { from: number; to: number }) => `${formatNumber(b.from, 0)}–${formatNumber(b.to, 0)}`

/** Issue 54: how the class did, per task and over the course, as SVG bars with their tables. */
export function ChartsTab({ course }: TabProps) {
  const { t } = useT(NS)
  const [params, setParams] = useSearchParams()
  const tree = useLearning(course.id)
  const taskId = params.get('taskId') ?? ''
  const tasks = allTasks(tree.data).filter(isGradable)
  const task = tasks.find((x) => x.id === taskId)
  function choose(v: string) {
    const next = new URLSearchParams(params)
    if (v) next.set('taskId', v)
    else next.delete('taskId')
    setParams(next, { replace: true })
  }
  return (
    <div className="charts">
      <TotalsChart courseId={course.id} />
      <h3>{t('charts.perTask')}</h3>
      {tree.error && <ErrorNotice error={tree.error} onRetry={() => void tree.refetch()} />}
      <SelectField label={t('charts.task')} value={taskId} onChange={(e) => choose(e.target.value)}>
        <option value="">{t('charts.chooseTask')}</option>
        {tasks.map((x) => (
          <option key={x.id} value={x.id}>
            {x.title}
          </option>
        ))}
      </SelectField>
      {taskId && !task && tree.data && <Empty>{t('grading.taskMissing')}</Empty>}
      {task && <TaskCharts key={task.id} courseId={course.id} task={task} />}
    </div>
  )
}

function TotalsChart({ courseId }: { courseId: string }) {
  const { t } = useT(NS)
  const q = useChart<TotalsDistribution>(`/courses/${enc(courseId)}/analytics/totals`)
  if (q.isPending) return <Loading label={t('charts.loading')} />
  if (q.error) return <ErrorNotice error={q.error} onRetry={() => void q.refetch()} />
  const d = q.data
  return (
    <BarChart
      testId="chart-totals"
      title={t('charts.totalsTitle')}
      desc={t('charts.totalsDesc', { graded: d.graded, ungraded: d.ungraded, students: d.students })}
      categoryLabel={t('charts.average')}
      series={[{ key: 'count', label: t('charts.students') }]}
      rows={d.buckets.map((b) => ({ label: bucketLabel(b), values: [b.count] }))}
    />
  )
}

function TaskCharts({ courseId, task }: { courseId: string; task: Task }) {
  const { t } = useT(NS)
  const base = `/courses/${enc(courseId)}/analytics/tasks/${enc(task.id)}`
  const scores = useChart<ScoreDistribution>(`${base}/scores`)
  const timeline = useChart<HandInTimeline>(`${base}/timeline`)
  const questions = useChart<QuestionCorrectness>(`${base}/questions`, task.taskType === 'QUIZ')
  const gate = (q: { isPending: boolean; error: unknown; refetch: () => unknown }) =>
    q.isPending ? <Loading label={t('charts.loading')} /> : q.error ? <ErrorNotice error={q.error} onRetry={() => void q.refetch()} /> : null
  return (
    <>
      {gate(scores) ??
        (scores.data && (
          <BarChart
            testId="chart-scores"
            title={t('charts.scoresTitle', { title: task.title })}
            desc={t('charts.scoresDesc', { graded: scores.data.graded, ungraded: scores.data.ungraded, students: scores.data.students })}
            categoryLabel={t('charts.score')}
            series={[{ key: 'count', label: t('charts.students') }]}
            rows={scores.data.buckets.map((b) => ({ label: bucketLabel(b), values: [b.count] }))}
          />
        ))}
      {gate(timeline) ??
        (timeline.data && (
          <BarChart
            testId="chart-timeline"
            title={t('charts.timelineTitle', { title: task.title })}
            desc={t('charts.timelineDesc', timeline.data)}
            categoryLabel={t('charts.day')}
            series={[
              { key: 'onTime', label: t('charts.onTime') },
              { key: 'late', label: t('charts.late') },
            ]}
            rows={timeline.data.days.map((d) => ({ label: formatDate(`${d.date}T12:00:00Z`), values: [d.onTime, d.late] }))}
          />
        ))}
      {task.taskType === 'QUIZ' &&
        (gate(questions) ??
          (questions.data && (
            <BarChart
              testId="chart-questions"
              title={t('charts.questionsTitle', { title: task.title })}
              desc={t('charts.questionsDesc', { count: questions.data.questions.length })}
              categoryLabel={t('charts.question')}
              series={[{ key: 'share', label: t('charts.shareCorrect') }]}
              max={100}
              rows={questions.data.questions.map((q) => {
                const pct = q.shareCorrect == null ? 0 : Math.round(q.shareCorrect * 1000) / 10
                return {
                  label: t('charts.questionN', { n: q.position }),
                  values: [pct],
                  shown: [q.shareCorrect == null ? t('charts.nobodyAnswered') : `${formatNumber(pct, 1)} %`],
                }
              })}
            />
          )))}
    </>
  )
}
