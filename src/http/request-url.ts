import { AppError } from './errors.ts'

/**
 * The request's URL. Bun builds `request.url` from the `Host` header, so a
 * malformed one (`a@b`, `a b`, empty, `x:99999`, `[::1`) leaves a string `new URL` throws on:
 * that is the client's mistake, answered 400 in the envelope (plumbing checks it first, before
 * any route), never a 500 with a stack trace. Use this instead of `new URL(request.url)`.
 */
export const BAD_HOST_MESSAGE = 'The Host header is not a valid host name.'

/** The URL, or null when the Host header made it unparsable. */
export function tryRequestUrl(request: Request): URL | null {
  try {
    return new URL(request.url)
  } catch {
    return null
  }
}

/** The URL; a malformed Host header throws the 400 (40000) AppError. */
export function requestUrl(request: Request): URL {
  const url = tryRequestUrl(request)
  if (!url) throw new AppError('MALFORMED_REQUEST', BAD_HOST_MESSAGE)
  return url
}
