import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useSearchParams } from 'react-router'
import { api } from '../api.ts'
import { EarlierAttempts } from '../grading/EarlierAttempts.tsx'
import { ExperimentGrading } from '../grading/ExperimentGrading.tsx'
import { DownloadAllLink } from '../terms/Terms.tsx'
import { QuestionGradeForm } from '../grading/QuestionGradeForm.tsx'
import { ReleaseGrades } from '../grading/ReleaseGrades.tsx'
import { RubricEditor } from '../grading/RubricEditor.tsx'
import { RubricGradeForm, type Choices } from '../grading/RubricGradeForm.tsx'
import { sheetScore } from '../../../modules/learning/scoring.ts'
import { addedAfter } from '../workspace/data.ts'
import { useGradingRoster } from '../grading/roster.tsx'
import { StudentStepper, type StepperEntry } from '../grading/StudentStepper.tsx'
import { formatNumber } from '../i18n/format.ts'
import { useT } from '../i18n/index.ts'
import { keys, useExperiments, useLearning, useMembers, useTaskSubmissions } from '../queries.ts'
import type { LearningGradeBody, LearningSubmission, Member, Task } from '../types.ts'
import { Badge } from '../ui/Badge.tsx'
import { SelectField } from '../ui/form.tsx'
import { Empty, ErrorNotice } from '../ui/Notice.tsx'
import { HandedInFiles } from '../ui/FilesPicker.tsx'
import { RichText } from '../ui/RichText.tsx'
import { Time } from '../ui/time.tsx'
import { allTasks } from '../workspace/sections.tsx'
import { PrivateComments } from '../comments/Blocks.tsx'
import { NS } from './messages.ts'
import type { TabProps } from './types.ts'

/** Tasks students hand in: homework and quizzes (reading/video material is not submitted). */
export const isGradable = (t: Task) => t.taskKind === 'HOMEWORK' || t.taskType === 'QUIZ'

/** A quiz's short-answer questions, numbered as in the quiz: what its rubric's criteria grade. */
const shortAnswers = (task: Task) => task.questions.flatMap((q, i) => (q.type === 'SHORT_ANSWER' ? [{ id: q.id, n: i + 1, stem: q.stem, points: q.points }] : []))

/**
 * A quiz sheet's score once graded by its rubric, as the API computes it: each short-answer
 * question's points are the sum of its criteria's chosen levels (questions without criteria keep
 * the points they have), then the sheet score of the questions it was asked.
 */
function quizRubricScore(task: Task, s: LearningSubmission, rubric: NonNullable<Task['rubric']>, choices: Choices): number | null {
  const fromRubric = new Map<string, number>()
  for (const c of rubric.criteria) {
    const level = c.levels.find((l) => l.id === choices[c.id])
    if (c.questionId && level) fromRubric.set(c.questionId, Math.round(((fromRubric.get(c.questionId) ?? 0) + level.points) * 100) / 100)
  }
  const given = [...s.questionScores.filter((x) => !fromRubric.has(x.questionId)), ...[...fromRubric].map(([questionId, score]) => ({ questionId, score }))]
  return sheetScore(
    task.questions.filter((q) => !addedAfter(q, s.submittedAt)).map((q) => ({ ...q, correctOptions: q.correctOptions ?? [] })),
    (s.answers ?? []).map((a) => ({ questionId: a.questionId, selectedOptions: a.selectedOptions ?? [], text: a.text ?? null })),
    given,
  )
}

/** Pick a task or an experiment, then grade it student by student. */
export function GradingTab({ course }: TabProps) {
  const { t } = useT(NS)
  const [params, setParams] = useSearchParams()
  const tree = useLearning(course.id)
  const experiments = useExperiments(course.id)
  const taskId = params.get('taskId') ?? ''
  const experimentId = params.get('experimentId') ?? ''
  const value = taskId ? `task:${taskId}` : experimentId ? `exp:${experimentId}` : ''
  const task = allTasks(tree.data).find((x) => x.id === taskId)
  const experiment = experimentId ? experiments.data?.find((e) => e.id === experimentId) : undefined

  function choose(v: string) {
    const next = new URLSearchParams(params)
    next.delete('taskId')
    next.delete('experimentId')
    next.delete('student')
    if (v.startsWith('task:')) next.set('taskId', v.slice(5))
    if (v.startsWith('exp:')) next.set('experimentId', v.slice(4))
    setParams(next, { replace: true })
  }

  return (
    <>
      {tree.error && <ErrorNotice error={tree.error} onRetry={() => void tree.refetch()} />}
      <SelectField label={t('grading.whatToGrade')} value={value} onChange={(e) => choose(e.target.value)}>
        <option value="">{t('grading.choose')}</option>
        {(tree.data?.units ?? []).flatMap((u) =>
          u.points
            .filter((p) => p.tasks.some(isGradable))
            .map((p) => (
              <optgroup key={p.id} label={`${u.title} › ${p.title}`}>
                {p.tasks.filter(isGradable).map((x) => (
                  <option key={x.id} value={`task:${x.id}`}>
                    {x.title}
                    {x.taskKind === 'HOMEWORK' ? t('grading.homeworkSuffix') : ''}
                  </option>
                ))}
              </optgroup>
            )),
        )}
        {(experiments.data ?? []).length > 0 && (
          <optgroup label={t('grading.experiments')}>
            {experiments.data!.map((e) => (
              <option key={e.id} value={`exp:${e.id}`}>
                {e.title}
              </option>
            ))}
          </optgroup>
        )}
      </SelectField>
      {task && isGradable(task) && (
        <RubricEditor
          key={`rubric:${task.id}`}
          rubric={task.rubric}
          path={`/courses/${course.id}/learning/tasks/${task.id}/rubric`}
          of={task.title}
          questions={task.taskType === 'QUIZ' ? shortAnswers(task) : null}
          invalidate={[keys.learning(course.id), keys.taskSubmissions(course.id, task.id)]}
        />
      )}
      {task && (isGradable(task) ? <TaskGrading key={task.id} task={task} courseId={course.id} /> : <Empty>{t('grading.material')}</Empty>)}
      {taskId && !task && tree.data && <Empty>{t('grading.taskMissing')}</Empty>}
      {experimentId && <DownloadAllLink courseId={course.id} experimentId={experimentId} />}
      {experiment && (
        <RubricEditor
          key={`rubric:${experiment.id}`}
          rubric={experiment.rubric}
          path={`/courses/${course.id}/experiments/${experiment.id}/rubric`}
          of={experiment.title}
          questions={null}
          invalidate={[keys.experiments(course.id), keys.experiment(course.id, experiment.id), keys.experimentSubmissions(experiment.id)]}
        />
      )}
      {experimentId && <ExperimentGrading experimentId={experimentId} courseId={course.id} />}
    </>
  )
}

function TaskGrading({ task, courseId }: { task: Task; courseId: string }) {
  const { t } = useT(NS)
  const subs = useTaskSubmissions(courseId, task.id)
  const members = useMembers(courseId)
  const { gate, rows: entries } = useGradingRoster(subs, members)
  if (gate) return gate

  const submitted = entries.filter((e) => e.attempts.length)
  const counts = {
    submitted: submitted.length,
    total: entries.length,
    late: submitted.filter((e) => e.attempts[0]!.late).length,
    graded: submitted.filter((e) => e.attempts[0]!.status === 'GRADED').length,
  }
  const who = (m: Member) => m.displayName || m.username
  const byId = new Map(entries.map((e) => [e.member.userId, e]))
  const steps: StepperEntry[] = entries.map((e) => {
    const newest = e.attempts[0]
    return {
      id: e.member.userId,
      name: who(e.member),
      submissionId: newest?.id ?? null,
      badges: !newest ? (
        <Badge>{t('grading.notSubmitted')}</Badge>
      ) : (
        <>
          {newest.late && <Badge tone="danger">{t('grading.late')}</Badge>}{' '}
          {newest.status === 'GRADED' ? (
            <>
              <Badge tone="ok">{t('grading.graded', { score: formatNumber(newest.score, 2) })}</Badge>
              {newest.released === false && (
                <>
                  {' '}
                  <Badge tone="warn">{t('grading.held')}</Badge>
                </>
              )}
            </>
          ) : (
            <Badge tone="info">{t('grading.needsGrading')}</Badge>
          )}
        </>
      ),
    }
  })

  return (
    <>
    {task.gradeRelease === 'MANUAL' && (
      <ReleaseGrades
        path={`/courses/${courseId}/learning/tasks/${task.id}/release`}
        held={submitted.filter((e) => e.attempts.some((a) => a.released === false)).length}
        invalidate={[keys.taskSubmissions(courseId, task.id), keys.learningOverview(courseId), keys.grades(courseId)]}
      />
    )}
    <StudentStepper entries={steps} summary={t('grading.summary', counts)}>
      {(step, nav) => {
        const current = byId.get(step.id)!
        return (
          <div className="grading-with-comments">
            {current.attempts.length === 0 ? (
              <Empty>{t('grading.nothingYet')}</Empty>
            ) : (
              <Attempts key={current.attempts[0]!.id} attempts={current.attempts} task={task} courseId={courseId} who={who(current.member)} next={nav.next} />
            )}
            <PrivateComments key={step.id} courseId={courseId} taskId={task.id} studentId={step.id} studentName={who(current.member)} isTeacher open />
          </div>
        )
      }}
    </StudentStepper>
    </>
  )
}

function Attempts({ attempts, task, courseId, who, next }: { attempts: LearningSubmission[]; task: Task; courseId: string; who: string; next: () => void }) {
  const { t } = useT(NS)
  const [newest, ...earlier] = attempts
  return (
    <>
      <SubmissionGrading s={newest!} task={task} courseId={courseId} who={who} attempts={attempts.length} next={next} />
      <EarlierAttempts earlier={earlier} score={(s) => (s.status === 'GRADED' ? formatNumber(s.score, 2) : null)}>
        {(s) => (
          <>
            {s.content && <RichText html={s.content} />}
            <HandedInFiles files={s.files} />
            {s.answers && (
              <ol className="answers">
                {task.questions.map((q) => {
                  const a = s.answers?.find((x) => x.questionId === q.id)
                  const text = q.type === 'SHORT_ANSWER' ? a?.text : (a?.selectedOptions ?? []).map((i) => q.options[i]).join(', ')
                  return (
                    <li key={q.id}>
                      <span className="answer-stem">{q.stem}</span> <span className="answer-value">{text || t('grading.noAnswer')}</span>
                    </li>
                  )
                })}
              </ol>
            )}
          </>
        )}
      </EarlierAttempts>
    </>
  )
}

function SubmissionGrading({ s, attempts, task, courseId, who, next }: { s: LearningSubmission; attempts: number; task: Task; courseId: string; who: string; next: () => void }) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const gradeOptions = {
    mutationFn: (body: LearningGradeBody) => api<LearningSubmission>('PATCH', `/courses/${courseId}/learning/submissions/${s.id}/grade`, body),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: keys.taskSubmissions(courseId, task.id) })
      void queryClient.invalidateQueries({ queryKey: keys.learningOverview(courseId) })
      void queryClient.invalidateQueries({ queryKey: keys.grades(courseId) })
      void queryClient.invalidateQueries({ queryKey: keys.homeworks })
    },
  }
  const grade = useMutation(gradeOptions)
  // Grading by rubric: its own mutation, so its saved/pending state is its form's.
  const byRubric = useMutation(gradeOptions)
  return (
    <div className="submission" data-testid="task-submission">
      <p className="submission-head">
        <Time iso={s.submittedAt} /> {s.late && <Badge tone="danger">{t('grading.late')}</Badge>}{' '}
        {s.status === 'GRADED' ? <Badge tone="ok">{t('grading.graded', { score: formatNumber(s.score, 2) })}</Badge> : <Badge tone="info">{t('grading.needsGrading')}</Badge>}
        {s.released === false && (
          <>
            {' '}
            <Badge tone="warn">{t('grading.held')}</Badge>
          </>
        )}
        {attempts > 1 && <span className="meta"> · {t('grading.attempts', { count: attempts })}</span>}
      </p>
      {s.autoScore != null && <p className="meta">{t('grading.autoScore', { score: formatNumber(s.autoScore, 2) })}</p>}
      {s.content && <RichText html={s.content} />}
      <HandedInFiles files={s.files} />
      {task.rubric && (
        <RubricGradeForm
          s={s}
          rubric={task.rubric}
          who={who}
          {...(task.taskType === 'QUIZ'
            ? {
                scoreOf: (r: NonNullable<Task['rubric']>, c: Choices) => quizRubricScore(task, s, r, c),
                questionOf: (id: string) => shortAnswers(task).find((q) => q.id === id)?.n ?? null,
              }
            : {})}
          save={(b) => byRubric.mutate(b, { onSuccess: next })}
          pending={byRubric.isPending}
          error={byRubric.error}
          saved={byRubric.isSuccess}
        />
      )}
      <QuestionGradeForm s={s} task={task} who={who} save={(b) => grade.mutate(b)} pending={grade.isPending} error={grade.error} saved={grade.isSuccess} />
    </div>
  )
}
