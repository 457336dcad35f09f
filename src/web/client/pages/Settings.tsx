import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api, get } from '../api.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { Checkbox } from '../ui/form.tsx'
import { ErrorNotice, QueryView, Success } from '../ui/Notice.tsx'

type EmailType = 'HOMEWORK_REMINDER' | 'SUBMISSION_GRADED' | 'ANNOUNCEMENT'
interface Preferences {
  email: Record<EmailType, boolean>
}

const KEY = ['notification-preferences'] as const
const LABELS: { type: EmailType; label: string; hint: string }[] = [
  { type: 'HOMEWORK_REMINDER', label: 'Homework reminders', hint: 'New homework, 24 hours before the deadline, and at the deadline.' },
  { type: 'SUBMISSION_GRADED', label: 'Grades', hint: 'When a teacher grades one of your submissions.' },
  { type: 'ANNOUNCEMENT', label: 'Announcements', hint: 'Every announcement in your courses.' },
]

/** /settings: which notifications also come by e-mail. Each switch saves at once. */
export default function SettingsPage() {
  usePageTitle('Settings')
  const qc = useQueryClient()
  const prefs = useQuery({ queryKey: KEY, queryFn: () => get<Preferences>('/me/notification-preferences') })
  const save = useMutation({
    mutationFn: (change: Partial<Record<EmailType, boolean>>) => api<Preferences>('PUT', '/me/notification-preferences', { email: change }),
    // The switch moves at once; the server's answer (or a refetch after an error) settles it.
    onMutate: (change) => qc.setQueryData<Preferences>(KEY, (old) => (old ? { email: { ...old.email, ...change } as Preferences['email'] } : old)),
    onSuccess: (data) => qc.setQueryData(KEY, data),
    onError: () => void qc.invalidateQueries({ queryKey: KEY }),
  })
  return (
    <>
      <div className="page-head">
        <h1>Settings</h1>
      </div>
      <section className="card" aria-labelledby="email-heading">
        <h2 id="email-heading">E-mail notifications</h2>
        <p className="hint">Everything always arrives in Messages. Choose what is also sent to your e-mail address.</p>
        <QueryView query={prefs}>
          {(data: Preferences) => (
            <div data-testid="email-preferences">
              {LABELS.map(({ type, label, hint }) => (
                <Checkbox key={type} label={label} hint={hint} checked={data.email[type]} onChange={(v) => save.mutate({ [type]: v })} />
              ))}
            </div>
          )}
        </QueryView>
        {save.isSuccess && <Success>Saved.</Success>}
        {save.error && <ErrorNotice error={save.error} />}
      </section>
    </>
  )
}
