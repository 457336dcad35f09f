import { exportJWK, generateKeyPair, decodeJwt, SignJWT, type JWK } from 'jose'
import Provider, { type KoaContextWithOIDC } from 'oidc-provider'
import { freePort } from './processes.ts'

/**
 * A real OpenID Provider for tests: panva's `oidc-provider` (the certified Node
 * implementation) listening on 127.0.0.1, with its development login page (any login name;
 * the password is not checked) and consent given in advance. Never a mock: discovery, the
 * authorization endpoint, PKCE, the token endpoint, signed ID tokens, JWKS and userinfo are
 * the provider's own.
 *
 * Misbehaviour for the negative tests is configuration, not fakery:
 *   - `accounts` decide the claims of each login name (email_verified, groups, ...);
 *   - a second client (`other`) shares the provider;
 *   - ID tokens live 60 seconds (a service clock ahead of that sees them expired);
 *   - `tamper` rewrites the token endpoint's ID token in a Koa middleware: re-signed with
 *     the provider's own key (a wrong nonce, audience or issuer the signature vouches for),
 *     or altered without re-signing (a broken signature).
 */
export const CLIENT_ID = 'cls-web'
export const CLIENT_SECRET = 'cls-web-secret-0123456789abcdef'
export const OTHER_CLIENT_ID = 'other-app'

export type Tamper =
  | { kind: 'claims'; claims: Record<string, unknown> }
  | { kind: 'unsigned'; claims: Record<string, unknown> }

export interface TestProvider {
  issuer: string
  accounts: Map<string, Record<string, unknown>>
  /** The next token responses' ID tokens are rewritten (until set back to null). */
  tamper: Tamper | null
  stop(): Promise<void>
}

export async function startProvider(redirectUris: string[], at?: { port: number }): Promise<TestProvider> {
  const port = at?.port ?? (await freePort())
  const issuer = `http://127.0.0.1:${port}`
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' }
  const accounts = new Map<string, Record<string, unknown>>()

  const provider = new Provider(issuer, {
    clients: [
      { client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: redirectUris, grant_types: ['authorization_code'], response_types: ['code'] },
      { client_id: OTHER_CLIENT_ID, client_secret: 'other-secret-0123456789abcdef', redirect_uris: redirectUris, grant_types: ['authorization_code'], response_types: ['code'] },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ['test-cookie-key-0123456789'] },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['preferred_username', 'name', 'given_name', 'family_name', 'groups'],
    },
    ttl: { IdToken: 60, AccessToken: 600, AuthorizationCode: 600, Interaction: 600, Session: 3600, Grant: 3600 },
    async findAccount(_ctx: KoaContextWithOIDC, id: string) {
      const claims = accounts.get(id) ?? { email: `${id}@campus.test`, email_verified: true }
      return { accountId: id, claims: async () => ({ sub: id, ...claims }) }
    },
    // Consent is given in advance (a school's own application usually is pre-approved).
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const clientId = ctx.oidc.client!.clientId
      const existing = ctx.oidc.session!.grantIdFor(clientId)
      if (existing) {
        const g = await ctx.oidc.provider.Grant.find(existing)
        if (g) return g
      }
      const grant = new ctx.oidc.provider.Grant({ clientId, accountId: ctx.oidc.session!.accountId })
      grant.addOIDCScope(String(ctx.oidc.params!.scope ?? 'openid'))
      await grant.save()
      return grant
    },
  } as ConstructorParameters<typeof Provider>[1])

  const state: TestProvider = {
    issuer,
    accounts,
    tamper: null,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }

  provider.on('server_error', (_ctx: unknown, err: Error) => console.error('[oidc-provider]', err))
  provider.use(async (ctx, next) => {
    await next()
    const tamper = state.tamper
    if (!tamper || ctx.path !== '/token' || ctx.method !== 'POST' || ctx.status !== 200) return
    const body = ctx.body as { id_token?: string }
    if (!body?.id_token) return
    const claims = { ...decodeJwt(body.id_token), ...tamper.claims }
    if (tamper.kind === 'claims') {
      body.id_token = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).sign(privateKey)
    } else {
      const [header, , signature] = body.id_token.split('.')
      body.id_token = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`
    }
  })

  const server = provider.listen(port, '127.0.0.1')
  return state
}

/** A tiny cookie jar: enough for the provider's interaction cookies and the service's cookies. */
export class CookieJar {
  private cookies = new Map<string, string>()
  store(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const at = pair!.indexOf('=')
      const name = pair!.slice(0, at).trim()
      const value = pair!.slice(at + 1).trim()
      if (!value || /max-age=0|expires=thu, 01 jan 1970/i.test(c)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }
  get(name: string) {
    return this.cookies.get(name)
  }
  set(name: string, value: string) {
    this.cookies.set(name, value)
  }
  delete(name: string) {
    this.cookies.delete(name)
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }
}

/**
 * Plays the browser at the provider: follows its redirects from the authorization URL,
 * submits the development login form as `login`, and returns the callback URL the provider
 * sends the browser to (with `code`, `state`, `iss`).
 */
export async function loginAtProvider(authorizationUrl: string, login: string, redirectPrefix: string): Promise<URL> {
  const jar = new CookieJar()
  let url = new URL(authorizationUrl)
  let method = 'GET'
  let body: URLSearchParams | undefined
  for (let hop = 0; hop < 12; hop++) {
    const res = await fetch(url, { method, body, redirect: 'manual', headers: { cookie: jar.header() } })
    jar.store(res)
    method = 'GET'
    body = undefined
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel()
      const next = new URL(res.headers.get('location')!, url)
      if (next.href.startsWith(redirectPrefix)) return next
      url = next
      continue
    }
    const html = await res.text()
    if (res.status !== 200) throw new Error(`provider answered ${res.status} at ${url.pathname}: ${html.slice(0, 300)}`)
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
    if (!action) throw new Error(`no form at ${url.pathname}: ${html.slice(0, 300)}`)
    const form = new URLSearchParams()
    for (const [tag] of html.matchAll(/<input[^>]*>/g)) {
      const name = /\bname="([^"]+)"/.exec(tag)?.[1]
      if (name) form.set(name, /\bvalue="([^"]*)"/.exec(tag)?.[1] ?? '')
    }
    if (form.has('login')) form.set('login', login)
    if (form.has('password')) form.set('password', 'any-password')
    url = new URL(action.replace(/&amp;/g, '&'), url)
    method = 'POST'
    body = form
  }
  throw new Error('too many redirects at the provider')
}
