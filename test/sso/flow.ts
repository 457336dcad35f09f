import type { Config } from '../../src/config.ts'
import { createLogger } from '../../src/lib/log.ts'
import type { Clock } from '../../src/lib/clock.ts'
import { SESSION_COOKIE } from '../../src/http/auth.ts'
import { CALLBACK_PATH, SIGN_IN_COOKIE } from '../../src/modules/sso/model.ts'
import { testApp, type TestContext } from '../support/harness.ts'
import { CLIENT_ID, CLIENT_SECRET, CookieJar, loginAtProvider, type TestProvider } from '../support/oidc-provider.ts'

/** What the SSO tests share: an app configured for the test provider, and one browser's walk through a sign-in. */
export const ORIGIN = 'http://localhost'
export const REDIRECT_URI = `${ORIGIN}${CALLBACK_PATH}`

export function oidcConfig(op: TestProvider, over: Partial<NonNullable<Config['oidc']>> = {}): Partial<Config> {
  return {
    publicUrl: ORIGIN,
    oidc: {
      issuer: op.issuer,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      displayName: 'Campus account',
      scopes: 'openid email profile',
      teacherRule: { claim: 'groups', value: 'teachers' },
      ...over,
    },
  }
}

export interface SsoApp extends TestContext {
  /** Every log line the app wrote (JSON). */
  logs: string[]
}

export async function ssoApp(op: TestProvider, opts: { clock?: Clock; config?: Partial<Config> } = {}): Promise<SsoApp> {
  const logs: string[] = []
  const ctx = await testApp({
    clock: opts.clock,
    config: { ...oidcConfig(op), ...opts.config },
    deps: { log: createLogger('warn', (l) => logs.push(l)) },
  })
  return { ...ctx, logs }
}

export interface Browser {
  jar: CookieJar
  /** GET on the app as this browser (cookies sent and kept). */
  get(pathAndQuery: string): Promise<Response>
}

export function browser(app: { handle(r: Request): Promise<Response> }): Browser {
  const jar = new CookieJar()
  return {
    jar,
    async get(pathAndQuery) {
      const res = await app.handle(new Request(`${ORIGIN}${pathAndQuery}`, { headers: { cookie: jar.header() } }))
      jar.store(res)
      return res
    },
  }
}

/** Start → the provider's login as `login` → the callback URL (not yet followed). */
export async function toCallback(b: Browser, login: string, next?: string): Promise<URL> {
  const start = await b.get(`/api/v1/auth/oidc/start${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}`)
  if (start.status !== 302) throw new Error(`start answered ${start.status}: ${await start.text()}`)
  return loginAtProvider(start.headers.get('location')!, login, REDIRECT_URI)
}

export interface Landing {
  status: number
  location: string | null
  session: string | undefined
}

export async function callback(b: Browser, url: URL): Promise<Landing> {
  const res = await b.get(`${url.pathname}${url.search}`)
  return { status: res.status, location: res.headers.get('location'), session: b.jar.get(SESSION_COOKIE) }
}

/** A whole sign-in as `login`: where the callback sends the browser, and the login cookie. */
export async function signInAs(app: { handle(r: Request): Promise<Response> }, login: string, next?: string) {
  const b = browser(app)
  const landing = await callback(b, await toCallback(b, login, next))
  return { ...landing, browser: b }
}

export { SIGN_IN_COOKIE }
