import sanitizeHtml from 'sanitize-html'

/**
 * The one allow-list for every rich-text field (announcements, experiment descriptions,
 * task content, text answers, feedback). Sanitised on write: what is stored is what is returned.
 */
/** A cell keeps colspan/rowspan only as small whole numbers (1-100). */
function spans(tagName: string, attribs: sanitizeHtml.Attributes) {
  const out: sanitizeHtml.Attributes = {}
  for (const k of ['colspan', 'rowspan'] as const) {
    const v = attribs[k]
    if (v && /^[1-9]\d?$|^100$/.test(v.trim()) && v.trim() !== '1') out[k] = v.trim()
  }
  return { tagName, attribs: out }
}

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr',
    'strong', 'b', 'em', 'i', 'u', 's', 'strike', 'del',
    'ul', 'ol', 'li', 'a', 'code', 'pre', 'blockquote',
    // Tables (issue 29.10: pasted ones were flattened); no style, width or colgroup.
    'table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td',
  ],
  allowedAttributes: { a: ['href', 'title', 'rel', 'target'], code: ['class'], ol: ['start'], th: ['colspan', 'rowspan'], td: ['colspan', 'rowspan'] },
  allowedClasses: { code: ['language-*'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  // Dropped together with everything inside them, not just unwrapped.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object', 'embed', 'svg', 'math', 'template', 'form'],
  transformTags: {
    th: spans,
    td: spans,
    a: (tagName, attribs) => ({
      tagName,
      attribs: {
        ...(attribs.href ? { href: attribs.href } : {}),
        ...(attribs.title ? { title: attribs.title } : {}),
        rel: 'noopener noreferrer nofollow',
        ...(attribs.target === '_blank' ? { target: '_blank' } : {}),
      },
    }),
  },
}

// C0 controls other than tab, newline and carriage return, and DEL: browsers drop or replace them,
// and PostgreSQL refuses NUL in text (which would turn hostile input into a 500).
const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g

export function sanitizeRichText(html: string): string {
  return sanitizeHtml(html.replace(CONTROL_CHARS, ''), OPTIONS).trim()
}
