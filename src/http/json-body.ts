import { ValidationError } from 'elysia'
import type { z } from 'zod'
import { AppError } from './errors.ts'
import { MAX_JSON_DEPTH, mediaType, nestsDeeperThan, readJsonCounted } from './plumbing.ts'

const unparsable = () => new AppError('MALFORMED_REQUEST', 'The request body could not be parsed; send well-formed JSON or multipart/form-data.')

/**
 * A JSON body read by a route that reads its own body (`parse: 'none'`, because it also takes
 * multipart/form-data), answered exactly as Elysia answers a route with a `body` schema: counted
 * as it is read (413 past MAX_JSON_BYTES), 400 for an empty, malformed or too deeply nested body,
 * and a failed schema is Elysia's own ValidationError, so the envelope, its field rows and their
 * translation (src/i18n/request.ts) are the ones every other JSON route gives. A body of another
 * (or no) media type is no body.
 */
export async function readJsonBody<S extends z.ZodType>(request: Request, schema: S): Promise<z.output<S>> {
  let json: unknown
  if (mediaType(request) === 'application/json') {
    try {
      json = await readJsonCounted(request)
    } catch (e) {
      throw e instanceof AppError ? e : unparsable()
    }
    if (json === undefined) throw unparsable()
    if (json !== null && typeof json === 'object' && nestsDeeperThan(json, MAX_JSON_DEPTH)) {
      throw new AppError('MALFORMED_REQUEST', `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`)
    }
  }
  const result = schema.safeParse(json)
  if (result.success) return result.data
  throw new ValidationError('body', schema as any, json)
}
