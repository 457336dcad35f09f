import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Link, useNavigate } from 'react-router'
import { api, fieldErrors } from '../api.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { keys, useCourses, useMe } from '../queries.ts'
import type { Course, User } from '../types.ts'
import { CopyButton } from '../ui/CopyButton.tsx'
import { Empty, ErrorNotice, QueryView, Success } from '../ui/Notice.tsx'
import { TextArea, TextField } from '../ui/form.tsx'

export default function CoursesPage() {
  usePageTitle('My courses')
  const me = useMe().data!
  const courses = useCourses()
  return (
    <>
      <div className="page-head">
        <h1>My courses</h1>
      </div>
      <div className="grid-2">
        <section aria-labelledby="course-list-title">
          <h2 id="course-list-title">{me.role === 'TEACHER' ? 'Courses I teach' : 'Courses I have joined'}</h2>
          <QueryView query={courses} loading="Loading your courses…">
            {(list) =>
              list.length === 0 ? (
                <Empty>{me.role === 'TEACHER' ? 'No courses yet. Create your first course.' : 'You have not joined a course yet. Ask your teacher for an invite code.'}</Empty>
              ) : (
                <ul className="cards" data-testid="course-list">
                  {list.map((c) => (
                    <CourseCard key={c.id} course={c} me={me} />
                  ))}
                </ul>
              )
            }
          </QueryView>
        </section>
        <aside>{me.role === 'TEACHER' ? <CreateCourse /> : <JoinCourse />}</aside>
      </div>
    </>
  )
}

function CourseCard({ course, me }: { course: Course; me: User }) {
  const teaches = course.teacher?.id === me.id
  return (
    <li className="card">
      <h3>
        <Link to={`/courses/${course.id}`}>{course.title}</Link>
      </h3>
      <p className="meta">
        {teaches ? 'You teach this course' : `Teacher: ${course.teacher?.displayName || course.teacher?.username || '—'}`} · {course.memberCount}{' '}
        {course.memberCount === 1 ? 'member' : 'members'}
      </p>
      {course.description && <p className="clamp">{course.description}</p>}
      {course.inviteCode && (
        <p className="invite">
          Invite code: <code data-testid="invite-code">{course.inviteCode}</code> <CopyButton value={course.inviteCode} label="Copy code" />
        </p>
      )}
      {teaches && (
        <p>
          <Link to={`/courses/${course.id}/manage`} className="btn btn-small">
            Manage
          </Link>
        </p>
      )}
    </li>
  )
}

function CreateCourse() {
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
    if (!title.trim()) errs.title = 'Give the course a title.'
    if (!description.trim()) errs.description = 'Describe the course in a sentence or two.'
    setErrors(errs)
    if (!Object.keys(errs).length) create.mutate()
  }
  return (
    <section className="panel" aria-labelledby="create-course-title">
      <h2 id="create-course-title">Create a course</h2>
      <form onSubmit={submit} noValidate>
        <TextField label="Title" name="title" value={title} onChange={(e) => setTitle(e.target.value)} error={errors.title} maxLength={200} required />
        <TextArea
          label="Description"
          name="description"
          rows={3}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          error={errors.description}
          required
        />
        <button type="submit" className="btn btn-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create course'}
        </button>
      </form>
      {create.error && !Object.keys(errors).length && <ErrorNotice error={create.error} />}
      {create.data && (
        <div className="notice notice-success" role="status" data-testid="created-course">
          <p>
            <strong>{create.data.title}</strong> is ready. Share this invite code with your students:
          </p>
          <p className="invite">
            <code className="code-large" data-testid="new-invite-code">
              {create.data.inviteCode}
            </code>{' '}
            {create.data.inviteCode && <CopyButton value={create.data.inviteCode} label="Copy code" />}
          </p>
          <p>
            <Link to={`/courses/${create.data.id}/manage`}>Set up the course</Link>
          </p>
        </div>
      )}
    </section>
  )
}

function JoinCourse() {
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
    if (!code.trim()) return setError('Enter the invite code your teacher gave you.')
    setError(undefined)
    join.mutate()
  }
  return (
    <section className="panel" aria-labelledby="join-course-title">
      <h2 id="join-course-title">Join a course</h2>
      <form onSubmit={submit} noValidate>
        <TextField
          label="Invite code"
          name="inviteCode"
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          value={code}
          onChange={(e) => setCode(e.target.value)}
          error={error}
          hint="8 letters and digits, from your teacher."
          required
        />
        <button type="submit" className="btn btn-primary" disabled={join.isPending}>
          {join.isPending ? 'Joining…' : 'Join course'}
        </button>
      </form>
      {join.error && !error && <ErrorNotice error={join.error} />}
      {join.isSuccess && <Success>Joined. Opening the course…</Success>}
    </section>
  )
}
