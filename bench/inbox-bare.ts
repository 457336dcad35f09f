/**
 * The bare baseline of bench/inbox.ts: Bun.serve + postgres.js, no framework, in its own process.
 *
 *   DATABASE_URL=… bun bench/inbox-bare.ts <port>
 *
 * GET /api/v1/notifications runs what any server of this inbox must: the session token's HMAC
 * checked (Web Crypto, the key imported once), the session row read (the service's own
 * statement: a logout on another instance counts), then the inbox's two statements (the page and
 * the counters, sent at once), the texts rendered in the reader's language and the envelope
 * written with JSON.stringify. Nothing else: no routing table, hooks, validation, metrics or
 * logging. BENCH_BARE_AUTH=0 leaves the token and the session out (the user id from `?u=`): the
 * two inbox statements alone.
 */
import postgres from 'postgres'
import { sessionUser } from '../src/http/auth.ts'
import { ok } from '../src/http/envelope.ts'
import { InboxQuery } from '../src/modules/notifications/model.ts'
import { inbox } from '../src/modules/notifications/service.ts'

const port = Number(process.argv[2] ?? 0)
const sql = postgres(process.env.DATABASE_URL!, { max: Number(process.env.BENCH_POOL ?? 10), onnotice: () => {} })
const secret = process.env.BENCH_JWT_SECRET!
const auth = process.env.BENCH_BARE_AUTH !== '0'
const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
const defaults = InboxQuery.parse({})
const b64 = (s: string) => Buffer.from(s, 'base64url')

async function sid(req: Request): Promise<string | null> {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.get('authorization') ?? '')
  const parts = m ? m[1]!.split('.') : []
  if (parts.length !== 3) return null
  const good = await crypto.subtle.verify('HMAC', key, b64(parts[2]!), new TextEncoder().encode(`${parts[0]}.${parts[1]}`))
  if (!good) return null
  const payload = JSON.parse(b64(parts[1]!).toString()) as { sid?: string; exp?: number }
  return payload.exp && payload.exp * 1000 < Date.now() ? null : (payload.sid ?? null)
}

const server = Bun.serve({
  hostname: '127.0.0.1',
  port,
  async fetch(req) {
    const u = new URL(req.url)
    if (u.pathname !== '/api/v1/notifications') return new Response('not found', { status: 404 })
    const now = new Date()
    let userId: string | null = u.searchParams.get('u')
    if (auth) {
      const s = await sid(req)
      const who = s ? await sessionUser(sql as never, s, now) : null
      userId = who?.user.id ?? null
    }
    if (!userId) return new Response('{"code":40100}', { status: 401 })
    const data = await inbox(sql as never, userId, defaults, req.headers.get('accept-language') ?? undefined, now)
    return new Response(JSON.stringify(ok(data)), { headers: { 'content-type': 'application/json' } })
  },
})
console.log(`LISTENING ${server.port}`)
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))
