/** The caller's address: the socket's, or the first X-Forwarded-For hop behind a trusted proxy. */
export function clientIp(
  request: Request,
  server: { requestIP(r: Request): { address: string } | null } | null | undefined,
  trustProxy: boolean,
): string | null {
  if (trustProxy) {
    const fwd = request.headers.get('x-forwarded-for')
    if (fwd) return fwd.split(',')[0]!.trim().slice(0, 64) || null
  }
  return server?.requestIP(request)?.address ?? null
}
