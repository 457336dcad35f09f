import { lazy, Suspense } from 'react'
import { useT } from '../i18n/index.ts'
import type { EditorProps } from './Editor.tsx'

// The editor (ProseMirror) is the heaviest dependency; it loads only on pages that edit rich text.
const Editor = lazy(() => import('./Editor.tsx'))

export function RichEditor(props: EditorProps) {
  const { t } = useT()
  return (
    <Suspense
      fallback={
        <div className="field">
          <div className="label">{props.label}</div>
          <p className="loading" role="status">
            {t('ui.loadingEditor')}
          </p>
        </div>
      }
    >
      <Editor {...props} />
    </Suspense>
  )
}
