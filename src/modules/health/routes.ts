import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Deps } from '../../deps.ts'
import { envelope, ok } from '../../http/envelope.ts'

const Health = z.object({ status: z.enum(['UP', 'DOWN']), database: z.enum(['UP', 'DOWN']) }).meta({ id: 'Health' })

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
  return new Elysia({ tags: ['Infrastructure'] }).get(
    '/status/health',
    async ({ set }) => {
      const up = await databaseUp(deps, 2000)
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
}
