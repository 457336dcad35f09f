import type { Cookie } from 'elysia'
import type { Config } from '../../config.ts'
import type { Sql, TxSql } from '../../db/connect.ts'
import { SESSION_COOKIE, setSessionCookie } from '../../http/auth.ts'
import { newId } from '../../lib/ids.ts'
import * as q from './queries.ts'

export interface LoginSessionContext {
  sql: Sql
  config: Pick<Config, 'tokenTtlSeconds' | 'cookieSecure'>
  /** The auth plugin's `tokens.sign`. */
  sign: (payload: { sid: string; sub: string; exp: number }) => Promise<string>
  /** The request's cookie jar: the session cookie is set on it. */
  cookie: Record<string, Cookie<unknown>>
}

export interface LoginSessionOf {
  userId: string
  now: Date
  ip: string | null
  userAgent: string | null
}

/**
 * THE way a login state starts (password login, single sign-on): a server-side session row,
 * the bearer token naming it, and the HttpOnly cookie carrying the same token.
 */
export async function createLoginSession(ctx: LoginSessionContext, who: LoginSessionOf) {
  const session = await startSession(ctx.sql, who, ctx)
  setSessionCookie(ctx.cookie, session.accessToken, session.expiresAt, ctx.config.cookieSecure)
  return { ...session, tokenType: 'Bearer' as const }
}

/**
 * The session row and the token naming it, without the cookie: for a caller that writes the
 * session inside its own transaction and sets the cookie after commit (single sign-on).
 */
export async function startSession(
  sql: Sql | TxSql,
  who: LoginSessionOf,
  ctx: Pick<LoginSessionContext, 'sign'> & { config: Pick<Config, 'tokenTtlSeconds'> },
) {
  const sessionId = newId()
  const expiresAt = new Date(who.now.getTime() + ctx.config.tokenTtlSeconds * 1000)
  await q.insertSession(sql, { id: sessionId, userId: who.userId, now: who.now, expiresAt, userAgent: who.userAgent?.slice(0, 256) ?? null, ip: who.ip })
  const accessToken = await ctx.sign({ sid: sessionId, sub: who.userId, exp: Math.floor(expiresAt.getTime() / 1000) })
  return { sessionId, accessToken, expiresAt }
}

/** Answers with an expired session cookie (logout, or the current session ended). */
export function clearSessionCookie(cookie: Record<string, Cookie<unknown>>, config: Pick<Config, 'cookieSecure'>) {
  cookie[SESSION_COOKIE]!.set({
    value: '',
    httpOnly: true,
    sameSite: 'lax',
    secure: config.cookieSecure,
    path: '/',
    maxAge: 0,
    expires: new Date(0),
  })
}
