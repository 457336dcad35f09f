import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api, fieldErrors } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { keys } from '../queries.ts'
import type { Course } from '../types.ts'
import { Checkbox, TextArea, TextField, SubmitButton } from '../ui/form.tsx'
import { ErrorNotice, Success } from '../ui/Notice.tsx'
import { NS } from './messages.ts'
import type { TabProps } from './types.ts'
import { useUnsavedChanges } from './useUnsavedChanges.ts'
import { ArchivePanel, CopyPanel } from '../terms/Terms.tsx'
import { ReadOnlyScope } from '../ui/readOnly.tsx'
import { COMMENTS } from '../comments/messages.ts'
import { ExportCourse } from '../transfer/Transfer.tsx'
import { LtiToolsPanel } from '../lti/Lti.tsx'

/** Course settings: title and description, joining open or closed, a new invite code. */
export function SettingsTab({ course }: TabProps) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const [title, setTitle] = useState(course.title)
  const [description, setDescription] = useState(course.description)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const updated = (c: Course) => {
    queryClient.setQueryData(keys.course(course.id), c)
    void queryClient.invalidateQueries({ queryKey: keys.courses })
  }
  const save = useMutation({
    mutationFn: () => api<Course>('PATCH', `/courses/${course.id}`, { title: title.trim(), description: description.trim() }),
    onSuccess: updated,
    onError: (e) => setErrors(fieldErrors(e)),
  })
  const joining = useMutation({ mutationFn: (open: boolean) => api<Course>('PATCH', `/courses/${course.id}`, { joiningOpen: open }), onSuccess: updated })
  const rotate = useMutation({ mutationFn: () => api<Course>('POST', `/courses/${course.id}/invite-code`), onSuccess: updated })
  useUnsavedChanges((title !== course.title || description !== course.description) && !save.isPending)

  function submit(e: FormEvent) {
    e.preventDefault()
    if (!title.trim()) return setErrors({ title: t('settings.titleRequired') })
    setErrors({})
    save.mutate()
  }
  return (
    <div className="grid-2">
      <ReadOnlyScope>
      <form onSubmit={submit} noValidate aria-label={t('settings.details')}>
        <h3>{t('settings.details')}</h3>
        <TextField label={t('settings.title')} value={title} onChange={(e) => setTitle(e.target.value)} error={errors.title} maxLength={120} required />
        <TextArea label={t('settings.description')} rows={4} value={description} onChange={(e) => setDescription(e.target.value)} error={errors.description} />
        {save.error && !Object.keys(errors).length && <ErrorNotice error={save.error} />}
        <SubmitButton pending={save.isPending} pendingLabel={t('common.saving')} label={t('settings.save')} />
        {save.isSuccess && <Success>{t('settings.saved')}</Success>}
      </form>
      </ReadOnlyScope>
      <div>
        <ReadOnlyScope>
        <h3>{t('settings.joining')}</h3>
        <Checkbox
          label={t('settings.joiningOpen')}
          checked={course.joiningOpen ?? true}
          onChange={(open) => joining.mutate(open)}
          hint={course.joiningOpen === false ? t('settings.joiningClosedHint') : t('settings.joiningOpenHint')}
        />
        {joining.error != null && <ErrorNotice error={joining.error} />}
        <p>
          {t('settings.code')} <code data-testid="settings-invite-code">{course.inviteCode}</code>
        </p>
        <button
          type="button"
          className="btn"
          disabled={rotate.isPending}
          onClick={() => {
            if (window.confirm(t('settings.confirmRotate'))) rotate.mutate()
          }}
        >
          {t('settings.rotate')}
        </button>
        {rotate.isSuccess && <Success>{t('settings.rotated')}</Success>}
        {rotate.error != null && <ErrorNotice error={rotate.error} />}
        <CommentsSetting course={course} onSaved={updated} />
        </ReadOnlyScope>
        <ArchivePanel course={course} />
        <ExportCourse courseId={course.id} />
      </div>
      <CopyPanel course={course} />
      <ReadOnlyScope>
        <LtiToolsPanel courseId={course.id} />
      </ReadOnlyScope>
    </div>
  )
}

/** The course's switch for students' class comments (issue 53). */
function CommentsSetting({ course, onSaved }: { course: Course; onSaved: (c: Course) => void }) {
  const { t } = useT(COMMENTS)
  const toggle = useMutation({ mutationFn: (on: boolean) => api<Course>('PATCH', `/courses/${course.id}`, { studentComments: on }), onSuccess: onSaved })
  return (
    <>
      <h3>{t('classHeading')}</h3>
      <Checkbox label={t('settingLabel')} checked={course.studentComments} onChange={(on) => toggle.mutate(on)} hint={t('settingHint')} />
      {toggle.error != null && <ErrorNotice error={toggle.error} />}
    </>
  )
}
