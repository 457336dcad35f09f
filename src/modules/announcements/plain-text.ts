/** Longest notification excerpt of an announcement, in characters. */
export const EXCERPT_MAX = 140

const BLOCK_END = /<\/(p|h[1-6]|li|blockquote|pre)>|<br\s*\/?>|<hr\s*\/?>/gi

/**
 * A short plain-text excerpt of *sanitised* HTML, for notifications, one line per block. The input comes from
 * sanitizeRichText, so every `<`/`>` in text and attributes is escaped and removing tags by
 * pattern is exact; the few entities the sanitiser writes are decoded afterwards.
 */
export function excerpt(sanitisedHtml: string, max = EXCERPT_MAX): string {
  const text = sanitisedHtml
    .replace(/\s+/g, ' ')
    .replace(BLOCK_END, '$&\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    // Paragraphs, headings, list items and line breaks stay on lines of their own (the inbox
    // shows them with white-space: pre-line); other whitespace (source newlines included,
    // collapsed first) is one space.
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n\s*/g, '\n')
    .trim()
  if (text.length <= max) return text
  const cut = text.slice(0, max - 1)
  const space = Math.max(cut.lastIndexOf(' '), cut.lastIndexOf('\n'))
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`
}
