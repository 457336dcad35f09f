import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api, API_BASE, get } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { Checkbox, TextField } from '../ui/form.tsx'
import { ErrorNotice, Success } from '../ui/Notice.tsx'
import { LTI } from './messages.ts'

/** A registered LTI tool as the API answers it (docs/lti.md). */
export interface LtiTool {
  id: string
  courseId: string | null
  name: string
  clientId: string
  deploymentId: string
  loginUrl: string
  launchUrl: string
  jwksUrl: string
  deepLinkingUrl: string | null
  platform: { issuer: string; authorizationUrl: string; tokenUrl: string; jwksUrl: string }
}

const enc = encodeURIComponent
export const ltiToolsKey = (courseId: string) => ['lti-tools', courseId] as const
export const useLtiTools = (courseId: string, enabled = true) =>
  useQuery({ queryKey: ltiToolsKey(courseId), queryFn: () => get<LtiTool[]>(`/courses/${enc(courseId)}/lti/tools`), enabled })

const isUrl = (u: string) => /^https?:\/\/\S+$/i.test(u.trim())

/** The launch URL of an LTI task (the browser's session cookie signs the member in at the tool). */
export const launchUrlOf = (courseId: string, taskId: string) => `${API_BASE}/courses/${enc(courseId)}/learning/tasks/${enc(taskId)}/lti/launch`

/** The course settings' section: the tools, registering one by hand or dynamically, removing one. */
export function LtiToolsPanel({ courseId }: { courseId: string }) {
  const { t } = useT(LTI)
  const qc = useQueryClient()
  const tools = useLtiTools(courseId)
  const empty = { name: '', loginUrl: '', launchUrl: '', jwksUrl: '', deepLinkingUrl: '', sendName: true, sendEmail: false }
  const [d, setD] = useState(empty)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [registrationUrl, setRegistrationUrl] = useState('')
  const refresh = () => qc.invalidateQueries({ queryKey: ltiToolsKey(courseId) })
  const add = useMutation({
    mutationFn: () =>
      api<LtiTool>('POST', `/courses/${enc(courseId)}/lti/tools`, {
        name: d.name.trim(),
        loginUrl: d.loginUrl.trim(),
        launchUrl: d.launchUrl.trim(),
        jwksUrl: d.jwksUrl.trim(),
        ...(d.deepLinkingUrl.trim() ? { deepLinkingUrl: d.deepLinkingUrl.trim() } : {}),
        sendName: d.sendName,
        sendEmail: d.sendEmail,
      }),
    onSuccess: () => {
      setD(empty)
      void refresh()
    },
  })
  const remove = useMutation({ mutationFn: (id: string) => api('DELETE', `/courses/${enc(courseId)}/lti/tools/${enc(id)}`), onSuccess: () => void refresh() })
  const dynamic = useMutation({
    mutationFn: () => api<{ openUrl: string }>('POST', `/courses/${enc(courseId)}/lti/registrations`, { registrationUrl: registrationUrl.trim() }),
    onSuccess: (r) => {
      window.open(r.openUrl, '_blank')
    },
  })
  function submit(e: FormEvent) {
    e.preventDefault()
    const errs: Record<string, string> = {}
    if (!d.name.trim()) errs.name = t('nameRequired')
    for (const k of ['loginUrl', 'launchUrl', 'jwksUrl'] as const) if (!isUrl(d[k])) errs[k] = t('urlRequired')
    if (d.deepLinkingUrl.trim() && !isUrl(d.deepLinkingUrl)) errs.deepLinkingUrl = t('urlRequired')
    setErrors(errs)
    if (!Object.keys(errs).length) add.mutate()
  }
  const field = (k: 'name' | 'loginUrl' | 'launchUrl' | 'jwksUrl' | 'deepLinkingUrl') => (
    <TextField label={t(k)} type={k === 'name' ? 'text' : 'url'} value={d[k]} onChange={(e) => setD({ ...d, [k]: e.target.value })} error={errors[k]} required={k !== 'deepLinkingUrl'} />
  )
  return (
    <section className="lti-tools" aria-label={t('heading')} data-testid="lti-tools">
      <h3>{t('heading')}</h3>
      <p className="hint">{t('intro')}</p>
      {tools.error != null && <ErrorNotice error={tools.error} />}
      {tools.data && tools.data.length === 0 && <p>{t('none')}</p>}
      <ul className="lti-tool-list">
        {tools.data?.map((tool) => (
          <li key={tool.id} data-testid="lti-tool">
            <strong>{tool.name}</strong> {tool.courseId === null && <span className="badge">{t('schoolWide')}</span>}
            <dl className="lti-ids">
              <dt>{t('clientId')}</dt>
              <dd><code>{tool.clientId}</code></dd>
              <dt>{t('deploymentId')}</dt>
              <dd><code>{tool.deploymentId}</code></dd>
            </dl>
            {tool.courseId !== null && (
              <button type="button" className="btn btn-small" disabled={remove.isPending} onClick={() => window.confirm(t('confirmRemove', { name: tool.name })) && remove.mutate(tool.id)}>
                {t('remove')}
              </button>
            )}
          </li>
        ))}
      </ul>
      {remove.error != null && <ErrorNotice error={remove.error} />}
      <form onSubmit={submit} noValidate aria-label={t('byHand')}>
        <h4>{t('byHand')}</h4>
        {field('name')}
        {field('loginUrl')}
        {field('launchUrl')}
        {field('jwksUrl')}
        {field('deepLinkingUrl')}
        <Checkbox label={t('sendName')} checked={d.sendName} onChange={(v) => setD({ ...d, sendName: v })} />
        <Checkbox label={t('sendEmail')} checked={d.sendEmail} onChange={(v) => setD({ ...d, sendEmail: v })} />
        {add.error != null && <ErrorNotice error={add.error} />}
        <button type="submit" className="btn btn-primary" disabled={add.isPending}>
          {t('register')}
        </button>
        {add.data && (
          <div data-testid="lti-platform">
            <Success>{t('registered')}</Success>
            <dl className="lti-ids">
              <dt>{t('issuer')}</dt>
              <dd><code>{add.data.platform.issuer}</code></dd>
              <dt>{t('authorizationUrl')}</dt>
              <dd><code>{add.data.platform.authorizationUrl}</code></dd>
              <dt>{t('tokenUrl')}</dt>
              <dd><code>{add.data.platform.tokenUrl}</code></dd>
              <dt>{t('platformJwks')}</dt>
              <dd><code>{add.data.platform.jwksUrl}</code></dd>
              <dt>{t('clientId')}</dt>
              <dd><code>{add.data.clientId}</code></dd>
              <dt>{t('deploymentId')}</dt>
              <dd><code>{add.data.deploymentId}</code></dd>
            </dl>
          </div>
        )}
      </form>
      <form
        onSubmit={(e) => {
          e.preventDefault()
          if (isUrl(registrationUrl)) dynamic.mutate()
          else setErrors({ ...errors, registrationUrl: t('urlRequired') })
        }}
        noValidate
        aria-label={t('dynamic')}
      >
        <h4>{t('dynamic')}</h4>
        <TextField label={t('registrationUrl')} type="url" value={registrationUrl} onChange={(e) => setRegistrationUrl(e.target.value)} error={errors.registrationUrl} />
        <p className="hint">{t('dynamicHint')}</p>
        {dynamic.error != null && <ErrorNotice error={dynamic.error} />}
        <button type="submit" className="btn" disabled={dynamic.isPending}>
          {t('startDynamic')}
        </button>{' '}
        <button type="button" className="btn" onClick={() => void refresh()}>
          {t('reload')}
        </button>
      </form>
    </section>
  )
}

/**
 * An LTI task's launch, in a new window: the web app's CSP (`frame-src` is its own origin) keeps
 * tools out of frames in its pages.
 */
export function LtiLaunch({ courseId, taskId, toolId }: { courseId: string; taskId: string; toolId: string | null }) {
  const { t } = useT(LTI)
  if (!toolId) return <p className="hint">{t('toolGone')}</p>
  return (
    <div className="lti-launch">
      <a className="btn btn-primary" href={launchUrlOf(courseId, taskId)} target="_blank" rel="noopener" data-testid="lti-launch">
        {t('open')}
      </a>
      <p className="hint">{t('opensIn')}</p>
    </div>
  )
}

/**
 * Deep Linking 2.0 from the task editor: the teacher picks a tool, its picker opens in a new
 * window, and what is picked there comes back as LTI tasks of this knowledge point.
 */
export function LtiPicker({ courseId, pointId, pointTitle }: { courseId: string; pointId: string; pointTitle: string }) {
  const { t } = useT(LTI)
  const tools = useLtiTools(courseId)
  const [toolId, setToolId] = useState('')
  if (!tools.data?.length) return null
  const chosen = toolId || tools.data[0]!.id
  return (
    <span className="lti-picker">
      <select aria-label={`${t('tool')}: ${pointTitle}`} value={chosen} onChange={(e) => setToolId(e.target.value)} className="select-small">
        {tools.data.map((tool) => (
          <option key={tool.id} value={tool.id}>
            {tool.name}
          </option>
        ))}
      </select>{' '}
      <a
        className="btn btn-small"
        target="_blank"
        rel="noopener"
        data-testid="lti-pick"
        href={`${API_BASE}/courses/${enc(courseId)}/learning/points/${enc(pointId)}/lti/tools/${enc(chosen)}/deep-linking`}
      >
        {t('pick')}
      </a>
    </span>
  )
}
