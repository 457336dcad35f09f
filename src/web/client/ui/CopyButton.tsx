import { useState } from 'react'

/** Copies a value to the clipboard and says so (politely, for screen readers too). */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
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
        {label}
      </button>
      <span className="copy-status" role="status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the code and copy it' : ''}
      </span>
    </>
  )
}
