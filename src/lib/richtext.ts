import sanitizeHtml from 'sanitize-html'

/**
 * The one allow-list for every rich-text field (announcements, experiment descriptions,
 * task content, text answers, feedback). Sanitised on write: what is stored is what is returned.
 */
const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr',
    'strong', 'b', 'em', 'i', 'u', 's', 'strike', 'del',
    'ul', 'ol', 'li', 'a', 'code', 'pre', 'blockquote',
  ],
  allowedAttributes: { a: ['href', 'title', 'rel', 'target'], code: ['class'], ol: ['start'] },
  allowedClasses: { code: ['language-*'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  // Dropped together with everything inside them, not just unwrapped.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object', 'embed', 'svg', 'math', 'template', 'form'],
  transformTags: {
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
