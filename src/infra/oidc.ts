import * as oidc from 'openid-client'
import type { OidcConfig } from '../config.ts'

/** The claims single sign-on reads: the ID token's, completed by the userinfo endpoint's. */
export type Claims = Record<string, unknown> & { sub: string }

export interface AuthorizationRequest {
  state: string
  nonce: string
  codeVerifier: string
}

/**
 * The relying party, on openid-client (panva): discovery once per process (retried after a
 * failure), the provider's signing keys cached and shared between calls. Each call builds its
 * own `Configuration` so the protocol checks (ID token `exp`, `iat`) use the service's clock.
 */
export function oidcClient(cfg: OidcConfig, redirectUri: string) {
  // Plain http is accepted by config only for a provider on this machine (development, tests).
  const insecure = cfg.issuer.startsWith('http://')
  let server: Promise<oidc.ServerMetadata> | undefined
  let jwks: ReturnType<typeof oidc.getJwksCache>

  function metadata() {
    server ??= oidc
      .discovery(new URL(cfg.issuer), cfg.clientId, undefined, undefined, insecure ? { execute: [oidc.allowInsecureRequests] } : undefined)
      .then((c) => c.serverMetadata())
    server.catch(() => (server = undefined))
    return server
  }

  async function configuration(now: Date) {
    const meta = await metadata()
    // Absent, the methods default to client_secret_basic (RFC 8414).
    const methods = meta.token_endpoint_auth_methods_supported ?? ['client_secret_basic']
    const auth = methods.includes('client_secret_basic') ? oidc.ClientSecretBasic(cfg.clientSecret) : oidc.ClientSecretPost(cfg.clientSecret)
    const skew = Math.round((now.getTime() - Date.now()) / 1000)
    const c = new oidc.Configuration(meta, cfg.clientId, { [oidc.clockSkew]: skew }, auth)
    if (insecure) oidc.allowInsecureRequests(c)
    // Check the ID token's signature too, not only the TLS connection it came over.
    oidc.enableNonRepudiationChecks(c)
    if (jwks) oidc.setJwksCache(c, jwks)
    return c
  }

  return {
    /** Where to send the browser: code flow, PKCE S256, state and nonce. */
    async authorizationUrl(req: AuthorizationRequest, now: Date): Promise<URL> {
      const c = await configuration(now)
      return oidc.buildAuthorizationUrl(c, {
        redirect_uri: redirectUri,
        scope: cfg.scopes,
        response_type: 'code',
        code_challenge: await oidc.calculatePKCECodeChallenge(req.codeVerifier),
        code_challenge_method: 'S256',
        state: req.state,
        nonce: req.nonce,
      })
    },

    /**
     * Redeems the code of a callback: checks state, the token response, the ID token's
     * signature, issuer, audience, nonce and expiry; then reads userinfo (its `sub` must match).
     */
    async redeem(search: string, req: AuthorizationRequest, now: Date): Promise<{ issuer: string; claims: Claims }> {
      const c = await configuration(now)
      const current = new URL(redirectUri)
      current.search = search
      const tokens = await oidc.authorizationCodeGrant(
        c,
        current,
        { pkceCodeVerifier: req.codeVerifier, expectedState: req.state, expectedNonce: req.nonce, idTokenExpected: true },
        { redirect_uri: redirectUri },
      )
      jwks = oidc.getJwksCache(c) ?? jwks
      const idClaims = tokens.claims()
      if (!idClaims) throw new Error('the token response has no ID token')
      let userinfo: Record<string, unknown> = {}
      if (c.serverMetadata().userinfo_endpoint) userinfo = await oidc.fetchUserInfo(c, tokens.access_token, idClaims.sub)
      // The signed ID token wins where both name a claim.
      return { issuer: idClaims.iss, claims: { ...userinfo, ...idClaims } as Claims }
    },
  }
}

export type OidcClient = ReturnType<typeof oidcClient>

export const randomSecret = () => oidc.randomState()
export const randomCodeVerifier = () => oidc.randomPKCECodeVerifier()
