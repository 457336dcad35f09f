import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Deps } from '../../deps.ts'
import { envelope, ok } from '../../http/envelope.ts'

const Health = z.object({ status: z.enum(['UP', 'DOWN']), database: z.enum(['UP', 'DOWN']) }).meta({ id: 'Health' })
const Readiness = z
  .object({ status: z.enum(['READY', 'NOT_READY']), database: z.enum(['UP', 'DOWN']), draining: z.boolean() })
  .meta({ id: 'Readiness' })

async function databaseUp(deps: Deps, timeoutMs: number) {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    const timeout = new Promise<false>((r) => (timer = setTimeout(() => r(false), timeoutMs)))
    return await Promise.race([deps.sql`select 1`.then(() => true), timeout])
  } catch {
    return false
  } finally {
    clearTimeout(timer)
  }
}

export function healthRoutes(deps: Deps) {
  return new Elysia({ tags: ['Infrastructure'] })
    .get(
    '/status/health',
    async ({ set }) => {
      const up = await databaseUp(deps, 1500)
      if (!up) {
        set.status = 503
        return { code: 50300, message: 'The database cannot be reached.', data: { status: 'DOWN' as const, database: 'DOWN' as const } }
      }
      return ok({ status: 'UP' as const, database: 'UP' as const })
    },
    {
      response: { 200: envelope(Health), 503: z.object({ code: z.literal(50300), message: z.string(), data: Health }) },
      detail: { summary: 'Health check (anonymous)', description: '503 with status DOWN when the database is unreachable.' },
    },
  )
    .get(
      '/status/ready',
      async ({ set }) => {
        // The app is built only after the migrations ran; so "ready" is: not draining, database answers.
        const draining = deps.lifecycle?.draining ?? false
        const up = await databaseUp(deps, 1500)
        if (draining || !up) {
          set.status = 503
          return {
            code: 50300 as const,
            message: draining ? 'This instance is shutting down.' : 'The database cannot be reached.',
            data: { status: 'NOT_READY' as const, database: up ? ('UP' as const) : ('DOWN' as const), draining },
          }
        }
        return ok({ status: 'READY' as const, database: 'UP' as const, draining: false })
      },
      {
        response: { 200: envelope(Readiness), 503: z.object({ code: z.literal(50300), message: z.string(), data: Readiness }) },
        detail: {
          summary: 'Readiness check (anonymous)',
          description:
            'For load balancers: 200 once the migrations ran and the database answers; 503 while the instance drains after SIGTERM or while the database is unreachable. /status/health only reports the database.',
        },
      },
    )
}
