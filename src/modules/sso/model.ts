import { z } from 'zod'

export const Providers = z
  .object({
    password: z.boolean().meta({ description: 'Password login and registration are on (PASSWORD_LOGIN).' }),
    oidc: z
      .object({
        displayName: z.string().meta({ description: 'The button text: "Sign in with {displayName}".' }),
        startUrl: z.string().meta({ description: 'Open in the browser (a full page load), with `?next=/path` to come back there.' }),
      })
      .nullable()
      .meta({ description: 'Single sign-on (OpenID Connect), or null when not configured.' }),
  })
  .meta({ id: 'LoginProviders' })

export const START_PATH = '/api/v1/auth/oidc/start'
export const CALLBACK_PATH = '/api/v1/auth/oidc/callback'
/** Binds a sign-in to the browser that started it (see sql/033). */
export const SIGN_IN_COOKIE = 'cls_sso'
