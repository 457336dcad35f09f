import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useSearchParams } from 'react-router'
import { api } from '../api.ts'
import { GradeForm } from '../grading/GradeForm.tsx'
import { ExperimentGrading } from '../grading/ExperimentGrading.tsx'
import type { TabProps } from './types.ts'
import { keys, useExperiments, useLearning, useTaskSubmissions } from '../queries.ts'
import type { LearningSubmission, Task } from '../types.ts'
import { Badge } from '../ui/Badge.tsx'
import { SelectField } from '../ui/form.tsx'
import { Empty, QueryView } from '../ui/Notice.tsx'
import { RichText } from '../ui/RichText.tsx'
import { formatScore, Time } from '../ui/time.tsx'
import { allTasks } from '../workspace/sections.tsx'
import { AnswerList } from '../workspace/TaskCard.tsx'

/** Pick a task or an experiment, then grade each student's newest submission. */
export function GradingTab({ course }: TabProps) {
  const [params, setParams] = useSearchParams()
  const tree = useLearning(course.id)
  const experiments = useExperiments(course.id)
  const taskId = params.get('taskId') ?? ''
  const experimentId = params.get('experimentId') ?? ''
  const value = taskId ? `task:${taskId}` : experimentId ? `exp:${experimentId}` : ''
  const task = allTasks(tree.data).find((t) => t.id === taskId)

  function choose(v: string) {
    const next = new URLSearchParams(params)
    next.delete('taskId')
    next.delete('experimentId')
    if (v.startsWith('task:')) next.set('taskId', v.slice(5))
    if (v.startsWith('exp:')) next.set('experimentId', v.slice(4))
    setParams(next, { replace: true })
  }

  return (
    <>
      <SelectField label="What to grade" value={value} onChange={(e) => choose(e.target.value)}>
        <option value="">Choose a task or an experiment…</option>
        {(tree.data?.units ?? []).flatMap((u) =>
          u.points.map((p) => (
            <optgroup key={p.id} label={`${u.title} › ${p.title}`}>
              {p.tasks.map((t) => (
                <option key={t.id} value={`task:${t.id}`}>
                  {t.title}
                  {t.taskKind === 'HOMEWORK' ? ' (homework)' : ''}
                </option>
              ))}
            </optgroup>
          )),
        )}
        {(experiments.data ?? []).length > 0 && (
          <optgroup label="Experiments">
            {experiments.data!.map((e) => (
              <option key={e.id} value={`exp:${e.id}`}>
                {e.title}
              </option>
            ))}
          </optgroup>
        )}
      </SelectField>
      {task && <TaskGrading task={task} courseId={course.id} />}
      {taskId && !task && tree.data && <Empty>That task is not in this course.</Empty>}
      {experimentId && <ExperimentGrading experimentId={experimentId} courseId={course.id} />}
    </>
  )
}

function TaskGrading({ task, courseId }: { task: Task; courseId: string }) {
  const subs = useTaskSubmissions(courseId, task.id)
  return (
    <QueryView query={subs} loading="Loading submissions…">
      {(list) => {
        if (list.length === 0) return <Empty>No submissions for this task yet.</Empty>
        // Newest first already; the newest per student is the one that counts.
        const newest = new Map<string, { latest: LearningSubmission; attempts: number }>()
        for (const s of list) {
          const k = s.student?.id ?? s.id
          const cur = newest.get(k)
          if (cur) cur.attempts++
          else newest.set(k, { latest: s, attempts: 1 })
        }
        return (
          <ul className="plain stack" data-testid="task-submissions">
            {[...newest.values()].map(({ latest, attempts }) => (
              <li key={latest.id} className="submission">
                <LearningSubmissionItem s={latest} attempts={attempts} task={task} courseId={courseId} />
              </li>
            ))}
          </ul>
        )
      }}
    </QueryView>
  )
}

function LearningSubmissionItem({ s, attempts, task, courseId }: { s: LearningSubmission; attempts: number; task: Task; courseId: string }) {
  const queryClient = useQueryClient()
  const grade = useMutation({
    mutationFn: (body: { score: number; feedback?: string }) => api<LearningSubmission>('PATCH', `/courses/${courseId}/learning/submissions/${s.id}/grade`, body),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: keys.taskSubmissions(courseId, task.id) })
      void queryClient.invalidateQueries({ queryKey: keys.learningOverview(courseId) })
      void queryClient.invalidateQueries({ queryKey: keys.grades(courseId) })
      void queryClient.invalidateQueries({ queryKey: keys.homeworks })
    },
  })
  const who = s.student?.displayName || s.student?.username || 'student'
  return (
    <>
      <p className="submission-head">
        <strong>{who}</strong> · <Time iso={s.submittedAt} /> {s.late && <Badge tone="danger">Late</Badge>}{' '}
        {s.status === 'GRADED' ? <Badge tone="ok">Graded {formatScore(s.score)}</Badge> : <Badge tone="info">Needs grading</Badge>}
        {attempts > 1 && <span className="meta"> · {attempts} attempts</span>}
      </p>
      {s.autoScore != null && <p className="meta">Auto score of the choice questions: {formatScore(s.autoScore)} / 100</p>}
      {s.answers && s.answers.length > 0 && <AnswerList answers={s.answers} questions={task.questions ?? []} />}
      {s.content && <RichText html={s.content} />}
      <GradeForm
        who={who}
        initialScore={s.score ?? s.autoScore}
        initialFeedback={s.feedback}
        save={(b) => grade.mutate(b)}
        pending={grade.isPending}
        error={grade.error}
        saved={grade.isSuccess}
      />
    </>
  )
}
