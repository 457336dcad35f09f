/** Longest notification excerpt of an announcement, in characters. */
export const EXCERPT_MAX = 140

const BLOCK_END = /<\/(p|h[1-6]|li|blockquote|pre)>|<br\s*\/?>|<hr\s*\/?>/gi

/**
 * A short plain-text excerpt of *sanitised* HTML, for notifications. The input comes from
 * sanitizeRichText, so every `<`/`>` in text and attributes is escaped and removing tags by
 * pattern is exact; the few entities the sanitiser writes are decoded afterwards.
 */
export function excerpt(sanitisedHtml: string, max = EXCERPT_MAX): string {
  const text = sanitisedHtml
    .replace(BLOCK_END, '$& ')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim()
  if (text.length <= max) return text
  const cut = text.slice(0, max - 1)
  const space = cut.lastIndexOf(' ')
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`
}
