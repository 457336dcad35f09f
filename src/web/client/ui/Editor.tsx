import { Table, TableCell, TableHeader, TableRow } from '@tiptap/extension-table'
import { EditorContent, mergeAttributes, useEditor, useEditorState, type Editor as TiptapEditor } from '@tiptap/react'
import StarterKit from '@tiptap/starter-kit'
import { useEffect, useId, useRef, useState } from 'react'
import { Described } from './form.tsx'
import { readDraft, useDraftStorageKey, writeDraft } from './useDraft.ts'
import { useReadOnly } from './readOnly.tsx'
import { defineMessages, useT } from '../i18n/index.ts'
import en from '../i18n/messages/en/editor.ts'
import zh from '../i18n/messages/zh-CN/editor.ts'

const NS = defineMessages('editor', en, zh)

/**
 * The rich-text editor (Tiptap on ProseMirror). It offers only what the API's allow-list keeps:
 * headings, bold/italic/underline/strike, lists, links, inline code, code blocks, quotes, and
 * tables (pasted from a spreadsheet or a document; they were flattened to lines, issue 29.10).
 * Its HTML is sent to the API, which sanitises it; pages render the API's stored HTML.
 */
export interface EditorProps {
  label: string
  value: string
  onChange: (html: string) => void
  error?: string
  hint?: string
  /** Keeps the typed text as a draft (ui/useDraft.ts) under this key until the value is reset to ''. */
  draftKey?: string
}

const extensions = [
  StarterKit.configure({
    heading: { levels: [2, 3, 4] },
    horizontalRule: false,
    // No `protocols`: linkify knows http, https and mailto already, and registering them again
    // from a second editor on the page logged "linkifyjs: already initialized" (issue 56.5i).
    // The API's allow-list keeps only those three schemes whatever the editor makes.
    link: { openOnClick: false, autolink: true, defaultProtocol: 'https' },
  }),
  // A plain <table><tbody>: no colgroup and no inline style (the CSP allows none, the API keeps none).
  Table.extend({
    renderHTML({ HTMLAttributes }) {
      return ['table', mergeAttributes(this.options.HTMLAttributes, HTMLAttributes), ['tbody', 0]]
    },
  }).configure({ resizable: false }),
  TableRow,
  TableHeader,
  TableCell,
]

export default function Editor({ label, value, onChange, error, hint, draftKey }: EditorProps) {
  const draftStorage = useDraftStorageKey(draftKey ?? null)
  // A draft left by a login that ended mid-edit comes back when the editor starts empty.
  useEffect(() => {
    const draft = readDraft<string>(draftStorage)
    if (draftStorage && draft && !value) onChange(draft)
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per draft key
  }, [draftStorage])
  // Every value is the draft; the parent resetting it to '' (submitted) removes the draft.
  const restored = useRef(false)
  useEffect(() => {
    if (!draftStorage) return
    if (!restored.current) {
      restored.current = true
      if (!value) return
    }
    writeDraft(draftStorage, value ? value : undefined)
  }, [draftStorage, value])
  const id = useId()
  const labelId = `${id}-label`
  // The last HTML this editor reported: the parent echoing it back must not reset the editor
  // (that would drop keystrokes typed in the meantime); only a different value does.
  const emitted = useRef(value)
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ')
  // In an archived course (issue 56.3) nothing can be typed that could not be saved.
  const readOnly = useReadOnly()
  const editor = useEditor({
    extensions,
    content: value,
    editable: !readOnly,
    // The service's CSP forbids inline <style>; the editor's styles live in styles.css.
    injectCSS: false,
    immediatelyRender: true,
    editorProps: {
      // Pasted office HTML is full of style attributes: the CSP refuses each one (a console error
      // per cell) and the API drops them anyway, so they go before the paste is parsed.
      transformPastedHTML: (html) => html.replace(/\sstyle\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi, ''),
      attributes: {
        class: 'editor-content rich',
        role: 'textbox',
        'aria-multiline': 'true',
        'aria-labelledby': labelId,
        ...(described ? { 'aria-describedby': described } : {}),
        ...(error ? { 'aria-invalid': 'true' } : {}),
      },
    },
    onUpdate: ({ editor }) => {
      emitted.current = editor.isEmpty ? '' : editor.getHTML()
      onChange(emitted.current)
    },
  })

  useEffect(() => {
    if (editor && editor.isEditable === readOnly) editor.setEditable(!readOnly)
  }, [editor, readOnly])

  // A parent that resets the value (after a successful submit) resets the editor too.
  useEffect(() => {
    if (!editor || value === emitted.current) return
    emitted.current = value
    editor.commands.setContent(value || '', { emitUpdate: false })
  }, [editor, value])

  return (
    <div className={`field editor${error ? ' has-error' : ''}`}>
      <div className="label" id={labelId} onClick={() => editor?.commands.focus()}>
        {label}
      </div>
      {editor && !readOnly && <Toolbar editor={editor} label={label} />}
      <EditorContent editor={editor} />
      <Described id={id} error={error} hint={hint} />
    </div>
  )
}

function Toolbar({ editor, label }: { editor: TiptapEditor; label: string }) {
  const { t } = useT(NS)
  const state = useEditorState({
    editor,
    selector: ({ editor: e }) => ({
      bold: e.isActive('bold'),
      italic: e.isActive('italic'),
      underline: e.isActive('underline'),
      strike: e.isActive('strike'),
      code: e.isActive('code'),
      h2: e.isActive('heading', { level: 2 }),
      h3: e.isActive('heading', { level: 3 }),
      bullet: e.isActive('bulletList'),
      ordered: e.isActive('orderedList'),
      quote: e.isActive('blockquote'),
      codeBlock: e.isActive('codeBlock'),
      link: e.isActive('link'),
    }),
  })
  const [linkOpen, setLinkOpen] = useState(false)
  const [href, setHref] = useState('')
  const chain = () => editor.chain().focus()
  const b = (key: keyof typeof state, text: string, title: string, run: () => void) => (
    // mousedown would move focus out of the editor (and lose the selection); the click still runs.
    <button type="button" className="tool" aria-pressed={state[key]} title={title} aria-label={title} onMouseDown={(e) => e.preventDefault()} onClick={run}>
      {text}
    </button>
  )
  function applyLink() {
    const url = href.trim()
    if (!url) chain().extendMarkRange('link').unsetLink().run()
    else chain().extendMarkRange('link').setLink({ href: /^(https?:|mailto:)/i.test(url) ? url : `https://${url}` }).run()
    setLinkOpen(false)
  }
  return (
    <div className="toolbar" role="toolbar" aria-label={t('toolbar', { label })}>
      {b('bold', 'B', t('bold'), () => chain().toggleBold().run())}
      {b('italic', 'I', t('italic'), () => chain().toggleItalic().run())}
      {b('underline', 'U', t('underline'), () => chain().toggleUnderline().run())}
      {b('strike', 'S', t('strike'), () => chain().toggleStrike().run())}
      {b('h2', 'H2', t('h2'), () => chain().toggleHeading({ level: 2 }).run())}
      {b('h3', 'H3', t('h3'), () => chain().toggleHeading({ level: 3 }).run())}
      {b('bullet', '•', t('bullet'), () => chain().toggleBulletList().run())}
      {b('ordered', '1.', t('ordered'), () => chain().toggleOrderedList().run())}
      {b('quote', '“ ”', t('quote'), () => chain().toggleBlockquote().run())}
      {b('code', '</>', t('code'), () => chain().toggleCode().run())}
      {b('codeBlock', '{ }', t('codeBlock'), () => chain().toggleCodeBlock().run())}
      {b('link', t('link'), t('link'), () => {
        setHref((editor.getAttributes('link').href as string | undefined) ?? '')
        setLinkOpen((o) => !o)
      })}
      {linkOpen && (
        <span className="link-editor">
          <input
            type="url"
            aria-label={t('linkAddress')}
            placeholder={t('linkPlaceholder')}
            value={href}
            onChange={(e) => setHref(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault()
                applyLink()
              }
              if (e.key === 'Escape') setLinkOpen(false)
            }}
          />
          <button type="button" className="btn btn-small" onClick={applyLink}>
            {t('apply')}
          </button>
        </span>
      )}
    </div>
  )
}
