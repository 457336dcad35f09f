/**
 * RFC 9110 §13.1.2 If-None-Match: true when `header` is `*` or lists `etag` (weak comparison,
 * so `W/"x"` matches `"x"`). The caller then answers 304 with the same ETag.
 */
export function ifNoneMatch(header: string | null | undefined, etag: string) {
  if (!header) return false
  if (header.trim() === '*') return true
  const bare = (t: string) => t.trim().replace(/^W\//, '')
  return header.split(',').some((t) => bare(t) === bare(etag))
}
