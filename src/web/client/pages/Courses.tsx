import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Link, useNavigate } from 'react-router'
import { api, fieldErrors } from '../api.ts'
import { Trans } from 'react-i18next'
import { defineMessages, useT } from '../i18n/index.ts'
import en from '../i18n/messages/en/courses.ts'
import zh from '../i18n/messages/zh-CN/courses.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { keys, useCourses, useMe } from '../queries.ts'
import type { Course, User } from '../types.ts'
import { CopyButton } from '../ui/CopyButton.tsx'
import { Empty, ErrorNotice, QueryView, Success } from '../ui/Notice.tsx'
import { TextArea, TextField, SubmitButton } from '../ui/form.tsx'
import { ArchivedCourses } from '../terms/Terms.tsx'
import { ImportCourse } from '../transfer/Transfer.tsx'

const NS = defineMessages('courses', en, zh)

export default function CoursesPage() {
  const { t } = useT(NS)
  usePageTitle(t('title'))
  const me = useMe().data!
  const courses = useCourses()
  return (
    <>
      <div className="page-head">
        <h1>{t('title')}</h1>
      </div>
      <div className="grid-2">
        <section aria-labelledby="course-list-title">
          <h2 id="course-list-title">{me.role === 'TEACHER' ? t('teaching') : t('joined')}</h2>
          <QueryView query={courses} loading={t('loading')}>
            {(list) =>
              list.length === 0 ? (
                // An invited student joins when they verify their address (issue 56.2): say so until then.
                <Empty>{me.role === 'TEACHER' ? t('emptyTeacher') : me.emailVerified === false ? t('emptyUnverified') : t('emptyStudent')}</Empty>
              ) : (
                <ul className="cards" data-testid="course-list">
                  {list.map((c) => (
                    <CourseCard key={c.id} course={c} me={me} />
                  ))}
                </ul>
              )
            }
          </QueryView>
          <ArchivedCourses />
        </section>
        <aside>
          {me.role === 'TEACHER' ? (
            <>
              <CreateCourse />
              <ImportCourse />
            </>
          ) : (
            <JoinCourse />
          )}
        </aside>
      </div>
    </>
  )
}

function CourseCard({ course, me }: { course: Course; me: User }) {
  const { t } = useT(NS)
  const teaches = course.myRole === 'TEACHER'
  return (
    <li className="card">
      <h3>
        <Link to={`/courses/${course.id}`}>{course.title}</Link>
      </h3>
      <p className="meta">
        {teaches ? t('youTeach') : t('teacher', { name: course.teacher?.displayName || course.teacher?.username || '—' })} ·{' '}
        {t('members', { count: course.memberCount })}
      </p>
      {course.description && <p className="clamp">{course.description}</p>}
      {course.inviteCode && (
        <p className="invite">
          {t('inviteCode')} <code data-testid="invite-code">{course.inviteCode}</code> <CopyButton value={course.inviteCode} label={t('copyCode')} />
        </p>
      )}
      {teaches && (
        <p>
          <Link to={`/courses/${course.id}/manage`} className="btn btn-small">
            {t('manage')}
          </Link>
        </p>
      )}
    </li>
  )
}

function CreateCourse() {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const [title, setTitle] = useState('')
  const [description, setDescription] = useState('')
  const [errors, setErrors] = useState<Record<string, string>>({})
  const create = useMutation({
    mutationFn: () => api<Course>('POST', '/courses', { title: title.trim(), description: description.trim() }),
    onSuccess: () => {
      setTitle('')
      setDescription('')
      void queryClient.invalidateQueries({ queryKey: keys.courses })
    },
    onError: (e) => setErrors(fieldErrors(e)),
  })
  function submit(e: FormEvent) {
    e.preventDefault()
    const errs: Record<string, string> = {}
    if (!title.trim()) errs.title = t('create.titleRequired')
    if (!description.trim()) errs.description = t('create.descriptionRequired')
    setErrors(errs)
    if (!Object.keys(errs).length) create.mutate()
  }
  return (
    <section className="panel" aria-labelledby="create-course-title">
      <h2 id="create-course-title">{t('create.heading')}</h2>
      <form onSubmit={submit} noValidate>
        <TextField label={t('create.title')} name="title" value={title} onChange={(e) => setTitle(e.target.value)} error={errors.title} maxLength={120} required />
        <TextArea
          label={t('create.description')}
          name="description"
          rows={3}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          error={errors.description}
          required
        />
        <SubmitButton pending={create.isPending} pendingLabel={t('create.submitting')} label={t('create.submit')} />
      </form>
      {create.error && !Object.keys(errors).length && <ErrorNotice error={create.error} />}
      {create.data && (
        <div className="notice notice-success" role="status" data-testid="created-course">
          <p>
            <Trans t={t} i18nKey="create.ready" values={{ title: create.data.title }} components={[<strong />]} />
          </p>
          <p className="invite">
            <code className="code-large" data-testid="new-invite-code">
              {create.data.inviteCode}
            </code>{' '}
            {create.data.inviteCode && <CopyButton value={create.data.inviteCode} label={t('copyCode')} />}
          </p>
          <p>
            <Link to={`/courses/${create.data.id}/manage`}>{t('create.setUp')}</Link>
          </p>
        </div>
      )}
    </section>
  )
}

function JoinCourse() {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const [code, setCode] = useState('')
  const [error, setError] = useState<string>()
  const join = useMutation({
    mutationFn: () => api<Course>('POST', '/courses/join', { inviteCode: code.trim() }),
    onSuccess: async (course) => {
      await queryClient.invalidateQueries({ queryKey: keys.courses })
      await queryClient.invalidateQueries({ queryKey: keys.homeworks })
      await navigate(`/courses/${course.id}`)
    },
    onError: (e) => setError(fieldErrors(e).inviteCode),
  })
  function submit(e: FormEvent) {
    e.preventDefault()
    if (!code.trim()) return setError(t('join.codeRequired'))
    setError(undefined)
    join.mutate()
  }
  return (
    <section className="panel" aria-labelledby="join-course-title">
      <h2 id="join-course-title">{t('join.heading')}</h2>
      <form onSubmit={submit} noValidate>
        <TextField
          label={t('join.code')}
          name="inviteCode"
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          value={code}
          onChange={(e) => setCode(e.target.value)}
          error={error}
          hint={t('join.codeHint')}
          required
        />
        <SubmitButton pending={join.isPending} pendingLabel={t('join.submitting')} label={t('join.submit')} />
      </form>
      {join.error && !error && <ErrorNotice error={join.error} />}
      {join.isSuccess && <Success>{t('join.joined')}</Success>}
    </section>
  )
}
