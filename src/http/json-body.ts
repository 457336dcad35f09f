import type { z } from 'zod'
import { AppError } from './errors.ts'
import { MAX_JSON_DEPTH, nestsDeeperThan, readJsonCounted } from './plumbing.ts'

/**
 * A JSON body read by a route that reads its own body (`parse: 'none'`, because it also takes
 * multipart/form-data): the same counting (413 past MAX_JSON_BYTES), the same 400 for malformed
 * or too deeply nested JSON, and the same VALIDATION_FAILED rows as Elysia's validation of a
 * `body` schema gives every other JSON route.
 */
export async function readJsonBody<S extends z.ZodType>(request: Request, schema: S): Promise<z.output<S>> {
  let json: unknown
  try {
    json = await readJsonCounted(request)
  } catch (e) {
    if (e instanceof AppError) throw e
    throw new AppError('MALFORMED_REQUEST', 'The request body could not be parsed; send well-formed JSON or multipart/form-data.')
  }
  if (json !== null && typeof json === 'object' && nestsDeeperThan(json, MAX_JSON_DEPTH)) {
    throw new AppError('MALFORMED_REQUEST', `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`)
  }
  const result = schema.safeParse(json)
  if (result.success) return result.data
  const fields = result.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'body', message: i.message }))
  throw new AppError('VALIDATION_FAILED', `Invalid request. ${fields.map((f) => `${f.field}: ${f.message}`).join('; ')}`.slice(0, 500), { fields })
}
