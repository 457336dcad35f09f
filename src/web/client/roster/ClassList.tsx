import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useDeferredValue, useState, type FormEvent } from 'react'
import { api, fieldErrors } from '../api.ts'
import { formatDate } from '../i18n/format.ts'
import { useT } from '../i18n/index.ts'
import type { TabProps } from '../manage/types.ts'
import { keys, useMe } from '../queries.ts'
import type { Member, Page } from '../types.ts'
import { TableWrap, TextArea, TextField, SubmitButton } from '../ui/form.tsx'
import { Empty, ErrorNotice, Loading, Success } from '../ui/Notice.tsx'
import { Pager } from '../ui/Pager.tsx'
import { NS } from './messages.ts'

const PAGE_SIZE = 50

interface RosterReport {
  enrolled: number
  alreadyMembers: number
  invited: number
  invalid: { row: number; value: string; reason: 'MALFORMED' | 'DUPLICATE' | 'TEACHER_ACCOUNT' }[]
}
interface Invitation {
  id: string
  email: string
  invitedAt: string
}

const enc = encodeURIComponent

/** The class list (search, pages of 50 read by the server from an index), co-teachers, import, invitations. */
export function ClassListTab({ course }: TabProps) {
  const me = useMe().data!
  const owner = course.teacher.id === me.id
  return (
    <>
      <Members courseId={course.id} />
      <div className="grid-2">
        <Teachers courseId={course.id} owner={owner} />
        <Import courseId={course.id} />
      </div>
      <Invitations courseId={course.id} />
    </>
  )
}

function Members({ courseId }: { courseId: string }) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const [search, setSearch] = useState('')
  const [page, setPage] = useState(1)
  const q = useDeferredValue(search.trim())
  const members = useQuery({
    queryKey: [...keys.members(courseId), 'page', q, page],
    queryFn: () => api<Page<Member>>('GET', `/courses/${enc(courseId)}/members?pageSize=${PAGE_SIZE}&page=${page}${q ? `&q=${enc(q)}` : ''}`),
    placeholderData: keepPreviousData,
  })
  const remove = useMutation({
    mutationFn: (m: Member) => api<null>('DELETE', `/courses/${enc(courseId)}/members/${enc(m.userId)}`),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: keys.members(courseId) })
      void queryClient.invalidateQueries({ queryKey: keys.course(courseId) })
    },
  })
  const roleLabel = (m: Member) => (m.owner ? t('classList.owner') : m.role === 'TEACHER' ? t('classList.teacher') : t('classList.student'))
  return (
    <section aria-label={t('classList.table')}>
      <TextField
        label={t('classList.search')}
        type="search"
        value={search}
        onChange={(e) => {
          setSearch(e.target.value)
          setPage(1)
        }}
        maxLength={100}
      />
      {members.isPending ? (
        <Loading />
      ) : members.error ? (
        <ErrorNotice error={members.error} onRetry={() => void members.refetch()} />
      ) : (
        <>
          <p data-testid="class-count">{t('classList.count', { count: members.data.total })}</p>
          {remove.error != null && <ErrorNotice error={remove.error} />}
          {members.data.items.length === 0 ? (
            <Empty>{t('classList.none')}</Empty>
          ) : (
            <TableWrap label={t('classList.table')}>
              <table data-testid="class-list">
                <thead>
                  <tr>
                    <th scope="col">{t('classList.name')}</th>
                    <th scope="col">{t('classList.username')}</th>
                    <th scope="col">{t('classList.role')}</th>
                    <th scope="col">{t('classList.joined')}</th>
                    <th scope="col">
                      <span className="visually-hidden">{t('classList.remove')}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {members.data.items.map((m) => {
                    const name = m.displayName || m.username
                    return (
                      <tr key={m.userId} data-testid="member-row">
                        <th scope="row">{name}</th>
                        <td>@{m.username}</td>
                        <td>{roleLabel(m)}</td>
                        <td>{formatDate(m.joinedAt)}</td>
                        <td>
                          {m.role === 'STUDENT' && (
                            <button
                              type="button"
                              className="btn btn-small btn-ghost btn-danger"
                              aria-label={t('classList.removeLabel', { name })}
                              disabled={remove.isPending}
                              onClick={() => {
                                if (window.confirm(t('classList.confirmRemove', { name }))) remove.mutate(m)
                              }}
                            >
                              {t('classList.remove')}
                            </button>
                          )}
                        </td>
                      </tr>
                    )
                  })}
                </tbody>
              </table>
            </TableWrap>
          )}
          <Pager page={page} pageSize={PAGE_SIZE} total={members.data.total} onPage={setPage} />
        </>
      )}
    </section>
  )
}

function Teachers({ courseId, owner }: { courseId: string; owner: boolean }) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const [identifier, setIdentifier] = useState('')
  const [errors, setErrors] = useState<Record<string, string>>({})
  // The teachers come first in the member list: its first page holds them.
  const teachers = useQuery({
    queryKey: [...keys.members(courseId), 'teachers'],
    queryFn: () => api<Page<Member>>('GET', `/courses/${enc(courseId)}/members?pageSize=200`).then((p) => p.items.filter((m) => m.role === 'TEACHER' && !m.owner)),
  })
  const changed = () => {
    void queryClient.invalidateQueries({ queryKey: keys.members(courseId) })
    void queryClient.invalidateQueries({ queryKey: keys.course(courseId) })
  }
  const add = useMutation({
    mutationFn: () => api<Member>('POST', `/courses/${enc(courseId)}/teachers`, { identifier: identifier.trim() }),
    onSuccess: () => {
      setIdentifier('')
      setErrors({})
      changed()
    },
    onError: (e) => setErrors(fieldErrors(e)),
  })
  const remove = useMutation({ mutationFn: (id: string) => api<null>('DELETE', `/courses/${enc(courseId)}/teachers/${enc(id)}`), onSuccess: changed })
  function submit(e: FormEvent) {
    e.preventDefault()
    if (identifier.trim()) add.mutate()
  }
  return (
    <section aria-labelledby="co-teachers-title" data-testid="co-teachers">
      <h3 id="co-teachers-title">{t('teachers.title')}</h3>
      <p className="hint">{t('teachers.hint')}</p>
      {teachers.data?.length === 0 && <p>{t('teachers.none')}</p>}
      <ul>
        {teachers.data?.map((m) => (
          <li key={m.userId}>
            {m.displayName || m.username} (@{m.username}){' '}
            {owner && (
              <button
                type="button"
                className="btn btn-small btn-ghost btn-danger"
                aria-label={t('teachers.removeLabel', { name: m.displayName || m.username })}
                onClick={() => {
                  if (window.confirm(t('teachers.confirmRemove', { name: m.displayName || m.username }))) remove.mutate(m.userId)
                }}
              >
                {t('teachers.remove')}
              </button>
            )}
          </li>
        ))}
      </ul>
      {owner && (
        <form onSubmit={submit} noValidate>
          <TextField label={t('teachers.identifier')} value={identifier} onChange={(e) => setIdentifier(e.target.value)} error={errors.identifier} maxLength={254} />
          {add.error != null && !Object.keys(errors).length && <ErrorNotice error={add.error} />}
          <button type="submit" className="btn" disabled={add.isPending}>
            {add.isPending ? t('teachers.adding') : t('teachers.add')}
          </button>
          {add.isSuccess && <Success>{t('teachers.added', { name: add.data.displayName || add.data.username })}</Success>}
        </form>
      )}
      {remove.error != null && <ErrorNotice error={remove.error} />}
    </section>
  )
}

function Import({ courseId }: { courseId: string }) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const [text, setText] = useState('')
  const [file, setFile] = useState<File | null>(null)
  const [missing, setMissing] = useState(false)
  const run = useMutation({
    mutationFn: async () => {
      const path = `/courses/${enc(courseId)}/roster`
      if (file) return api<RosterReport>('POST', path, new Blob([await file.text()], { type: 'text/csv' }))
      const emails = text.split(/[\s,;]+/).filter(Boolean)
      return api<RosterReport>('POST', path, { emails })
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: keys.members(courseId) })
      void queryClient.invalidateQueries({ queryKey: ['invitations', courseId] })
      void queryClient.invalidateQueries({ queryKey: keys.course(courseId) })
    },
  })
  function submit(e: FormEvent) {
    e.preventDefault()
    const empty = !file && !text.trim()
    setMissing(empty)
    if (!empty) run.mutate()
  }
  const report = run.data
  return (
    <form onSubmit={submit} noValidate aria-labelledby="import-title" data-testid="roster-import">
      <h3 id="import-title">{t('import.title')}</h3>
      <p className="hint">{t('import.hint')}</p>
      <TextArea label={t('import.paste')} rows={5} value={text} onChange={(e) => setText(e.target.value)} />
      <label className="field">
        <span className="label">{t('import.file')}</span>
        <input type="file" accept=".csv,text/csv" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
      </label>
      {missing && <p className="field-error">{t('import.empty')}</p>}
      {run.error != null && <ErrorNotice error={run.error} />}
      <SubmitButton pending={run.isPending} pendingLabel={t('import.importing')} label={t('import.submit')} />
      {report && (
        <div data-testid="roster-report">
          <Success>{t('import.report', { ...report, invalid: report.invalid.length })}</Success>
          {report.invalid.length > 0 && (
            <TableWrap label={t('import.invalidTable')}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('import.row')}</th>
                    <th scope="col">{t('import.value')}</th>
                    <th scope="col">{t('import.reason')}</th>
                  </tr>
                </thead>
                <tbody>
                  {report.invalid.map((r) => (
                    <tr key={r.row}>
                      <td>{r.row}</td>
                      <td>{r.value}</td>
                      <td>{t(`import.reasons.${r.reason}`)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </div>
      )}
    </form>
  )
}

function Invitations({ courseId }: { courseId: string }) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const [page, setPage] = useState(1)
  const list = useQuery({
    queryKey: ['invitations', courseId, page],
    queryFn: () => api<Page<Invitation>>('GET', `/courses/${enc(courseId)}/roster/invitations?pageSize=${PAGE_SIZE}&page=${page}`),
    placeholderData: keepPreviousData,
  })
  const revoke = useMutation({
    mutationFn: (id: string) => api<null>('DELETE', `/courses/${enc(courseId)}/roster/invitations/${enc(id)}`),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['invitations', courseId] }),
  })
  return (
    <section aria-labelledby="invitations-title" data-testid="invitations">
      <h3 id="invitations-title">{t('invitations.title')}</h3>
      <p className="hint">{t('invitations.hint')}</p>
      {list.error != null && <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />}
      {list.data && list.data.total === 0 && <p>{t('invitations.none')}</p>}
      {list.data && list.data.items.length > 0 && (
        <TableWrap label={t('invitations.title')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('invitations.email')}</th>
                <th scope="col">{t('invitations.invited')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('invitations.revoke')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((i) => (
                <tr key={i.id}>
                  <td>{i.email}</td>
                  <td>{formatDate(i.invitedAt)}</td>
                  <td>
                    <button
                      type="button"
                      className="btn btn-small btn-ghost btn-danger"
                      aria-label={t('invitations.revokeLabel', { email: i.email })}
                      onClick={() => {
                        if (window.confirm(t('invitations.confirmRevoke', { email: i.email }))) revoke.mutate(i.id)
                      }}
                    >
                      {t('invitations.revoke')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {list.data && <Pager page={page} pageSize={PAGE_SIZE} total={list.data.total} onPage={setPage} />}
      {revoke.error != null && <ErrorNotice error={revoke.error} />}
    </section>
  )
}
