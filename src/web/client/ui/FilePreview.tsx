import { useState } from 'react'
import { useT } from '../i18n/index.ts'
import '../layout/shell.ts'

/**
 * Inline previews of stored files, for the types the server serves inline (`?inline=1`, see
 * src/storage/download.ts): pictures, audio and video. Anything else, PDFs included (their own
 * scripts would run in the browser's viewer), stays a download link.
 */
export type PreviewKind = 'image' | 'audio' | 'video'

const IMAGE = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']
const AUDIO = ['audio/mpeg', 'audio/ogg', 'audio/wav', 'audio/webm', 'audio/mp4', 'audio/aac', 'audio/flac']
const VIDEO = ['video/mp4', 'video/webm', 'video/ogg']

export function previewKind(contentType: string | null | undefined): PreviewKind | null {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  if (IMAGE.includes(type)) return 'image'
  if (AUDIO.includes(type)) return 'audio'
  if (VIDEO.includes(type)) return 'video'
  return null
}

export const inlineUrl = (url: string) => `${url}${url.includes('?') ? '&' : '?'}inline=1`

/** The file itself, shown in the page. */
export function FileView({ url, kind, name }: { url: string; kind: PreviewKind; name: string }) {
  const { t } = useT('shell')
  const src = inlineUrl(url)
  switch (kind) {
    case 'image':
      return <img className="file-view file-view-image" src={src} alt={name} loading="lazy" />
    case 'audio':
      return (
        <audio className="file-view file-view-audio" src={src} controls preload="metadata" aria-label={name}>
          <a href={url}>{t('file.download')}</a>
        </audio>
      )
    case 'video':
      return (
        <video className="file-view file-view-video" src={src} controls preload="metadata" playsInline aria-label={name}>
          <a href={url}>{t('file.download')}</a>
        </video>
      )
  }
}

/**
 * A file with its download link and, for previewable types, a "Preview" toggle (video and audio
 * play in place at once when `open` is set).
 */
export function FilePreview({ url, name, contentType, open: initiallyOpen = false, meta }: { url: string; name: string; contentType: string | null | undefined; open?: boolean; meta?: string }) {
  const { t } = useT('shell')
  const kind = previewKind(contentType)
  const [open, setOpen] = useState(initiallyOpen && kind != null)
  return (
    <div className="file-preview" data-testid="file-preview">
      <p className="file-preview-head">
        <a href={url} download>
          {name}
        </a>
        {meta && <span className="meta"> {meta}</span>}{' '}
        {kind && (
          <button type="button" className="btn btn-small" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
            {open ? t('file.hidePreview') : t('file.preview')}
          </button>
        )}{' '}
        {kind && (
          <a href={inlineUrl(url)} target="_blank" rel="noopener noreferrer" className="meta">
            {t('file.openInTab')}
          </a>
        )}
      </p>
      {open && kind && <FileView url={url} kind={kind} name={name} />}
    </div>
  )
}
