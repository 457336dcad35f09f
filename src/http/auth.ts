import { jwt } from '@elysiajs/jwt'
import { Elysia, type DocumentDecoration } from 'elysia'
import type { Sql } from '../db/connect.ts'
import type { Clock } from '../lib/clock.ts'
import { isLocale } from '../i18n/locale.ts'
import { rememberUserLocale } from '../i18n/request.ts'
import { ERROR_CATALOGUE, forbidden, notFound, unauthenticated } from './errors.ts'
import { commentAccess, courseAccess, ownThreadOnly, type CommentAccess, type CourseAccess, type CourseLevel, type CurrentUser, type Role } from './guards.ts'

export const SESSION_COOKIE = 'cls_session'
const READ_METHODS = new Set(['GET', 'HEAD'])

/** `{ course: { level: 'teacher', whenArchived: 'allow' } }`: a write that an archived course still accepts. */
export interface CourseGuard {
  level: CourseLevel
  whenArchived: 'allow' | 'refuse-writes'
  /** A path parameter naming a student: a student of the course may name only themselves (a private thread). */
  ownStudent?: string
}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

interface SessionRow {
  session_id: string
  id: string
  username: string
  email: string
  display_name: string
  role: Role
  created_at: Date
  locale: string | null
  email_verified: boolean
  write_lsn?: string | null
}

/** How stale `sessions.last_used_at` may get: it is written at most once this often per session. */
export const LAST_USED_RESOLUTION_MS = 60_000

const errorResponse = (status: 401 | 403) => ({
  description: status === 401 ? ERROR_CATALOGUE.UNAUTHENTICATED.description : ERROR_CATALOGUE.FORBIDDEN.description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
})

const security: { [scheme: string]: string[] }[] = [{ bearerAuth: [] }, { cookieAuth: [] }]
const authDetail: DocumentDecoration = { security, responses: { 401: errorResponse(401) } }
const guardedDetail: DocumentDecoration = { security, responses: { 401: errorResponse(401), 403: errorResponse(403) } }

// The `auth` macro has run before a dependent macro (`auth: true`), but its output is not in
// the dependent macro's static type.
// `writeLsn`: the user's read-your-writes marker (src/db/replica.ts), read only with a replica.
type Authenticated = { user: CurrentUser; sessionId: string; writeLsn: string | null }

/**
 * Signs and verifies session tokens (HS256 JWTs) with @elysiajs/jwt. Given the secret as bytes,
 * jose runs `crypto.subtle.importKey` on every sign and verify (a tenth of a millisecond of
 * every authenticated request); the HMAC-SHA-256 key is imported once and reused instead.
 */
export function tokenSigner(secret: string) {
  type Signer = ReturnType<typeof jwt<'jwt', undefined>>['decorator']['jwt']
  let keyed: Promise<Signer> | undefined
  const signer = () =>
    (keyed ??= crypto.subtle
      .importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
      .then((key) => jwt({ name: 'jwt', secret: key, alg: 'HS256' }).decorator.jwt))
  return {
    sign: async (...args: Parameters<Signer['sign']>) => (await signer()).sign(...args),
    verify: async (...args: Parameters<Signer['verify']>) => (await signer()).verify(...args),
  }
}

/** The login cookie, the same for a password login and single sign-on. */
export function setSessionCookie(
  cookie: Record<string, { set(v: Record<string, unknown>): unknown } | undefined>,
  token: string,
  expiresAt: Date,
  secure: boolean,
) {
  cookie[SESSION_COOKIE]!.set({ value: token, httpOnly: true, sameSite: 'lax', secure, path: '/', expires: expiresAt })
}

export function bearerOrCookie(headers: Record<string, string | undefined>, cookieValue: unknown): string | null {
  const h = headers.authorization
  if (h) {
    const m = /^Bearer\s+(\S+)$/i.exec(h)
    return m ? m[1]! : null
  }
  return typeof cookieValue === 'string' && cookieValue ? cookieValue : null
}

/** The value of cookie `name` in a Cookie header (URI-decoded, as Elysia's cookie jar reads it), or null. */
export function cookieValue(header: string | null, name: string): string | null {
  if (!header) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue
    let value = part.slice(eq + 1).trim()
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1)
    try {
      return decodeURIComponent(value)
    } catch {
      return value
    }
  }
  return null
}

/** The session token of a request: the Authorization header's bearer token, else the login cookie. */
export const requestToken = (request: Request) =>
  bearerOrCookie({ authorization: request.headers.get('authorization') ?? undefined }, cookieValue(request.headers.get('cookie'), SESSION_COOKIE))

/**
 * The live session `sid` names and its user (one statement; also used by bench/bare.ts). The
 * same statement records the session's use, at most once a minute, so a session list can show
 * "last used" without a write per request.
 */
export async function sessionUser(sql: Sql, sid: string, now: Date, opts: { marker?: boolean } = {}): Promise<Authenticated | null> {
  const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_MS)
  // With a read replica (issue 55) the same statement reads the user's read-your-writes marker.
  const [row] = opts.marker
    ? await sql<SessionRow[]>`
    with touched as (
      update sessions set last_used_at = ${now}
       where id = ${sid} and revoked_at is null and expires_at > ${now}
         and (last_used_at is null or last_used_at <= ${stale})
      returning id
    )
    select s.id as session_id, u.id, u.username, u.email, u.display_name, u.role, u.created_at, u.locale, u.email_verified,
           (select m.lsn::text from replica_markers m where m.user_id = u.id) as write_lsn
      from sessions s join users u on u.id = s.user_id
     where s.id = ${sid} and s.revoked_at is null and s.expires_at > ${now}`
    : await sql<SessionRow[]>`
    with touched as (
      update sessions set last_used_at = ${now}
       where id = ${sid} and revoked_at is null and expires_at > ${now}
         and (last_used_at is null or last_used_at <= ${stale})
      returning id
    )
    select s.id as session_id, u.id, u.username, u.email, u.display_name, u.role, u.created_at, u.locale, u.email_verified
      from sessions s join users u on u.id = s.user_id
     where s.id = ${sid} and s.revoked_at is null and s.expires_at > ${now}`
  if (!row) return null
  const user: CurrentUser = {
    id: row.id,
    username: row.username,
    email: row.email,
    displayName: row.display_name,
    role: row.role,
    createdAt: row.created_at,
    locale: isLocale(row.locale) ? row.locale : null,
    emailVerified: row.email_verified,
  }
  return { user, sessionId: row.session_id, writeLsn: row.write_lsn ?? null }
}

/**
 * Tokens whose signature has already been checked, with their payloads: the session token comes
 * with every request, and checking its HMAC through jose costs 15-25 µs of CPU each time (about
 * a sixth of GET /auth/me's). A token is cached only after jose accepted it, is looked up by its
 * whole text (only its holder can present it) and is served from here only while its `exp` and
 * `nbf` hold at `now` (the service's clock, as jose is asked to judge them); the session row it
 * names is still read on every request (logout, expiry, a deleted account). Bounded: the oldest
 * entry goes first once `max` are held (under 1 KB each).
 */
export class VerifiedTokens<P extends { exp?: unknown; nbf?: unknown }> {
  private readonly payloads = new Map<string, P>()
  constructor(private readonly max = 10_000) {}

  get(token: string, now: Date): P | undefined {
    const payload = this.payloads.get(token)
    if (!payload) return undefined
    const seconds = Math.floor(now.getTime() / 1000)
    const live =
      (typeof payload.exp !== 'number' || payload.exp > seconds) && (typeof payload.nbf !== 'number' || payload.nbf <= seconds)
    if (live) return payload
    this.payloads.delete(token)
    return undefined
  }

  set(token: string, payload: P) {
    if (this.payloads.size >= this.max && !this.payloads.has(token)) this.payloads.delete(this.payloads.keys().next().value!)
    this.payloads.set(token, payload)
  }

  get size() {
    return this.payloads.size
  }
}

/**
 * The authentication plugin. Routes opt in with macros:
 *   `{ auth: true }`            any logged-in user → `user`, `sessionId`
 *   `{ role: 'TEACHER' }`       logged in with that role
 *   `{ course: 'member' }`      member (teacher or student) of `params.courseId` → `course`
 *   `{ course: 'teacher' }`     the teacher of `params.courseId`
 *   `{ course: 'student' }`     a student of `params.courseId`
 *   Any course level refuses a write (not GET/HEAD) in an archived course with 409 (40908);
 *   `{ course: { level, whenArchived: 'allow' } }` lets a route through (unarchive, copy).
 *   `{ course: { level, whenArchived, ownStudent: 'studentId' } }` a student names only themselves there.
 *   `{ comment: true }`         a comment the caller may see, `params.commentId` → `comment`
 *   `{ experimentSubmission: 'teacher' }`  the teacher of `params.submissionId`'s course
 * All of them run in `transform`, before the params, query and body are validated: a caller
 * who may not call a route gets 401/403 (or 404) whatever the request holds.
 * A token is a JWT naming a server-side session; the session row decides (logout, expiry).
 */
/** What the auth plugin uses of `Deps` (named here, so http imports nothing of src/deps.ts). */
export interface AuthDeps {
  sql: Sql
  /** A read replica (issue 55): markers are read with the session and written after a write request. */
  read?: { record(userId: string): Promise<void> }
  clock: Clock
  config: { jwtSecret: string }
}

export function authPlugin(deps: AuthDeps) {
  const { sql, clock, read } = deps
  const tokens = tokenSigner(deps.config.jwtSecret)
  type Payload = Exclude<Awaited<ReturnType<typeof tokens.verify>>, false>
  const verified = new VerifiedTokens<Payload>()
  const authenticated = new WeakMap<Request, Authenticated>()
  const courses = new WeakMap<Request, CourseAccess>()
  const comments = new WeakMap<Request, CommentAccess>()

  async function authenticate(token: string | null): Promise<Authenticated> {
    if (!token) throw unauthenticated()
    // The token's `exp` is judged by the service's clock, like the session row it names (a
    // test's manual clock, the real time in production). HS256 only: a token signed with the
    // secret under another algorithm (HS512) is refused.
    const now = clock.now()
    let payload: Payload | false | undefined = verified.get(token, now)
    if (!payload) {
      payload = await tokens.verify(token, { currentDate: now, algorithms: ['HS256'] })
      if (payload) verified.set(token, payload)
    }
    const sid = payload && typeof payload.sid === 'string' ? payload.sid : null
    // A well-signed token always names a UUID; anything else never reaches SQL.
    if (!sid || !UUID.test(sid)) throw unauthenticated()
    const who = await sessionUser(sql, sid, now, { marker: Boolean(read) })
    if (!who) throw unauthenticated()
    return who
  }

  return new Elysia({ name: 'auth' })
    .decorate('tokens', tokens)
    .macro({
      auth: {
        detail: authDetail,
        // Authenticate in `transform`, which runs before schema validation: an anonymous
        // request is a 401 whatever its body, and validation messages are only shown to users.
        // Reads the two headers itself: naming `headers` or `cookie` here would make Elysia
        // build a header object and parse the cookies of every authenticated request (issue 55).
        async transform({ request }) {
          const who = await authenticate(requestToken(request))
          authenticated.set(request, who)
          rememberUserLocale(request, who.user.locale)
        },
        resolve({ request }) {
          const who = authenticated.get(request)
          if (!who) throw unauthenticated()
          return who
        },
        // Read-your-writes with a replica (src/db/replica.ts): once a request that may have
        // written has been handled, and before its answer leaves, the primary's WAL position
        // becomes the user's marker, so their next read waits for a replica that has it.
        ...(read
          ? {
              async afterHandle({ request }: { request: Request }) {
                if (READ_METHODS.has(request.method)) return
                const who = authenticated.get(request)
                if (who) await read.record(who.user.id)
              },
            }
          : {}),
      },
    })
    .macro({
      role: (role: Role) => ({
        auth: true,
        detail: guardedDetail,
        // Also before validation: the wrong role learns nothing about the payload's rules.
        transform({ request }) {
          const who = authenticated.get(request)
          if (!who) throw unauthenticated()
          if (who.user.role !== role) {
            throw forbidden(role === 'TEACHER' ? 'Only teachers can do this.' : 'Teacher accounts cannot join courses or hand in work; only student accounts can.')
          }
        },
      }),
      course: (guard: CourseLevel | CourseGuard) => {
        const { level, whenArchived, ownStudent } = typeof guard === 'string' ? ({ level: guard, whenArchived: 'refuse-writes' } as CourseGuard) : guard
        // Every write (any method but GET/HEAD) in an archived course is refused here, in one
        // place, unless the route opts out (unarchiving, copying the course into a new term).
        const intent = (request: Request) => ({ write: whenArchived !== 'allow' && !READ_METHODS.has(request.method) })
        return {
          auth: true,
          detail: guardedDetail,
          // Before validation too: a caller who may not use the course gets 403/404 (or 409 for
          // a write in an archived course) whatever the body holds. A malformed course id is
          // left to params validation (400).
          async transform({ request, params }) {
            const who = authenticated.get(request)
            if (!who) throw unauthenticated()
            const courseId = (params as Record<string, string | undefined>).courseId ?? ''
            if (!UUID.test(courseId)) return
            const access = await courseAccess(sql, courseId, who.user, level, intent(request))
            courses.set(request, access)
            const student = ownStudent ? (params as Record<string, string | undefined>)[ownStudent] ?? '' : ''
            if (UUID.test(student)) await ownThreadOnly(sql, access, who.user, student)
          },
          async resolve(ctx) {
            const { user, params, request } = ctx as unknown as Authenticated & { params: Record<string, string | undefined>; request: Request }
            return { course: courses.get(request) ?? (await courseAccess(sql, params.courseId ?? '', user, level, intent(request))) }
          },
        }
      },
      /**
       * A comment the caller may see (`params.commentId`) → `comment`: 404 for an unknown one or
       * one they may not see, 409 for a write in an archived course. Before validation, like `course`.
       */
      comment: (_on: true) => ({
        auth: true,
        detail: guardedDetail,
        async transform({ request, params }) {
          const who = authenticated.get(request)
          if (!who) throw unauthenticated()
          const id = (params as Record<string, string | undefined>).commentId ?? ''
          if (UUID.test(id)) comments.set(request, await commentAccess(sql, id, who.user, { write: !READ_METHODS.has(request.method) }))
        },
        async resolve(ctx) {
          const { user, params, request } = ctx as unknown as Authenticated & { params: Record<string, string | undefined>; request: Request }
          return { comment: comments.get(request) ?? (await commentAccess(sql, params.commentId ?? '', user, { write: !READ_METHODS.has(request.method) })) }
        },
      }),
      /**
       * The teacher of the course of `params.submissionId` (an experiment submission): 404 for
       * an unknown submission, 403 for anyone else. Before validation, like `course`.
       */
      experimentSubmission: (level: 'teacher') => ({
        auth: true,
        detail: guardedDetail,
        async transform({ request, params }) {
          const who = authenticated.get(request)
          if (!who) throw unauthenticated()
          const id = (params as Record<string, string | undefined>).submissionId ?? ''
          if (!UUID.test(id)) return
          const [row] = await sql<{ course_id: string }[]>`select course_id from experiment_submissions where id = ${id}`
          if (!row) throw notFound('SUBMISSION_NOT_FOUND', 'This submission does not exist.')
          await courseAccess(sql, row.course_id, who.user, level, { write: !READ_METHODS.has(request.method) })
        },
      }),
    })
}
