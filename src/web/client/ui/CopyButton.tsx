import { useState } from 'react'
import { useT } from '../i18n/index.ts'

/** Copies a value to the clipboard and says so (politely, for screen readers too). */
export function CopyButton({ value, label }: { value: string; label?: string }) {
  const { t } = useT()
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle')
  async function copy() {
    try {
      await navigator.clipboard.writeText(value)
      setState('copied')
    } catch {
      setState('failed')
    }
    setTimeout(() => setState('idle'), 2500)
  }
  return (
    <>
      <button type="button" className="btn btn-small" onClick={copy}>
        {label ?? t('ui.copy')}
      </button>
      <span className="copy-status" role="status">
        {state === 'copied' ? t('ui.copied') : state === 'failed' ? t('ui.copyFailed') : ''}
      </span>
    </>
  )
}
