import type { DocumentDecoration } from 'elysia'
import { z } from 'zod'

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
})

/** OpenAPI request body of an upload route (those routes read multipart themselves, after the permission check). */
export function multipartRequestBody(schema: z.ZodType): DocumentDecoration['requestBody'] {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<
    string,
    unknown
  >
  return { required: true, content: { 'multipart/form-data': { schema: json as any } } }
}

const binary = { 'application/octet-stream': { schema: { type: 'string' as const, format: 'binary' } } }

/** Responses of a file download route. */
export const downloadResponses = {
  200: {
    description:
      'The stored bytes, streamed. `Content-Type` is the type stored at upload; `Content-Disposition: attachment` carries the file name (RFC 5987 `filename*` for non-ASCII); `X-Content-Type-Options: nosniff`; `Accept-Ranges: bytes`.',
    content: binary,
  },
  206: { description: 'One byte range (`Range: bytes=start-end`, `bytes=start-`, `bytes=-suffix`) with `Content-Range`.', content: binary },
  404: errorResponse('Unknown id.'),
  416: errorResponse('The range lies outside the file (41600); `Content-Range: bytes */size`.'),
  503: errorResponse('File storage (the S3 bucket) cannot be reached (50301); retry after `Retry-After` seconds.'),
}
