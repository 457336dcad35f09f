import { Elysia } from 'elysia'
import type { Deps } from '../../deps.ts'
import { authPlugin, setSessionCookie } from '../../http/auth.ts'
import { clientIp } from '../../http/client-ip.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { notFound } from '../../http/errors.ts'
import { requestIdOf } from '../../http/plumbing.ts'
import { Providers, SIGN_IN_COOKIE, START_PATH } from './model.ts'
import * as service from './service.ts'

const FAILED = '/login?error=sso'

/** Why a sign-in failed, for the log: our own reason, or the OpenID client's error and code. */
function reasonOf(e: unknown): Record<string, unknown> {
  if (e instanceof service.SsoFailure) return { reason: e.message }
  type Err = { name?: string; message?: string; code?: string; error?: string; error_description?: string; cause?: unknown }
  const err = e as Err
  // openid-client wraps oauth4webapi's error, whose message names the check ("unexpected JWT
  // "nonce" claim value", "JWT signature verification failed"). Its other details (the
  // response body, the claims) are not logged: they hold tokens.
  const inner = err?.cause instanceof Error ? (err.cause as Err) : undefined
  const claim = (inner?.cause as { claim?: unknown } | undefined)?.claim
  return {
    reason: `${err?.name ?? 'Error'}: ${err?.message ?? String(e)}${inner?.message ? ` (${inner.message})` : ''}`,
    code: err?.code ?? inner?.code,
    claim: typeof claim === 'string' ? claim : undefined,
    error: err?.error,
    errorDescription: err?.error_description,
  }
}

export function ssoRoutes(deps: Deps) {
  const { sql, clock, config, log } = deps
  const oidc = config.oidc
  // One relying party per app (Deps.oidc): discovery and keys shared by both prefixes.
  const client = deps.oidc

  const redirectTo = (set: { status?: number | string; headers: Record<string, unknown> }, location: string) => {
    set.status = 302
    set.headers.location = location
    set.headers['cache-control'] = 'no-store'
    return ''
  }

  return new Elysia({ prefix: '/auth', tags: ['Auth'] })
    .use(authPlugin(deps))
    .get('/providers', () => ok({ password: config.passwordLogin, oidc: oidc ? { displayName: oidc.displayName, startUrl: START_PATH } : null }), {
      response: { 200: envelope(Providers) },
      detail: { summary: 'How people can log in here', description: 'Anonymous. What the login page offers: password login, single sign-on, or both.' },
    })
    .get(
      '/oidc/start',
      async ({ request, cookie, set }) => {
        if (!client) throw notFound('NOT_FOUND', 'Single sign-on is not configured on this server.')
        const now = clock.now()
        try {
          const { url, browser } = await service.startSignIn(sql, client, {
            next: new URL(request.url).searchParams.get('next'),
            browser: typeof cookie[SIGN_IN_COOKIE]?.value === 'string' ? cookie[SIGN_IN_COOKIE].value : undefined,
            now,
          })
          cookie[SIGN_IN_COOKIE]!.set({
            value: browser,
            httpOnly: true,
            sameSite: 'lax',
            secure: config.cookieSecure,
            path: '/',
            maxAge: service.SIGN_IN_TTL_MS / 1000,
          })
          return redirectTo(set, url.href)
        } catch (e) {
          log.warn('single sign-on could not start', { requestId: requestIdOf(request), ...reasonOf(e) })
          return redirectTo(set, FAILED)
        }
      },
      {
        detail: {
          summary: 'Start single sign-on (OpenID Connect)',
          description:
            'Open in the browser. 302 to the provider: authorization code flow with PKCE (S256), `state` and `nonce`, valid 10 minutes on any instance. `next` (a path on this site; anything else means `/courses`) is where the browser lands afterwards. 404 when single sign-on is not configured.',
          parameters: [{ name: 'next', in: 'query', required: false, schema: { type: 'string', example: '/courses' } }],
          responses: { 302: { description: 'To the provider (or to `/login?error=sso` when it cannot be reached).' } },
        },
      },
    )
    .get(
      '/oidc/callback',
      async ({ request, cookie, set, tokens, server }) => {
        if (!client || !oidc) throw notFound('NOT_FOUND', 'Single sign-on is not configured on this server.')
        try {
          const result = await service.finishSignIn(sql, client, { tokenTtlSeconds: config.tokenTtlSeconds, oidc }, {
            search: new URL(request.url).search,
            browser: typeof cookie[SIGN_IN_COOKIE]?.value === 'string' ? cookie[SIGN_IN_COOKIE].value : undefined,
            now: clock.now(),
            ip: clientIp(request, server, config.trustProxy),
            userAgent: request.headers.get('user-agent')?.slice(0, 256) ?? null,
            sign: (p) => tokens.sign(p),
          })
          setSessionCookie(cookie, result.accessToken, result.expiresAt, config.cookieSecure)
          return redirectTo(set, result.next)
        } catch (e) {
          log.warn('single sign-on failed', { requestId: requestIdOf(request), ...reasonOf(e) })
          return redirectTo(set, e instanceof service.SsoFailure && e.shown !== 'sso' ? `/login?error=${e.shown}` : FAILED)
        }
      },
      {
        detail: {
          summary: 'Single sign-on callback (the redirect URI)',
          description:
            'The provider sends the browser here. Checks state (single use, same browser), the code, the ID token (signature, issuer, audience, nonce, expiry); finds the account by issuer and `sub`, else links the account with the e-mail only when `email_verified` is true, else creates one (role by `OIDC_TEACHER_RULE`). Then the same login cookie as a password login and a 302 to `next`. An existing account is linked only when its own address is verified too; an unverified local account with that address → 302 to `/login?error=sso-unverified-local` (the page explains: prove the address with "forgot password", or ask the school), nothing linked. Any other failure: 302 to `/login?error=sso`, nothing created, and a log line saying why.',
          responses: { 302: { description: 'To `next` (logged in), or to `/login?error=sso`.' } },
        },
      },
    )
}
