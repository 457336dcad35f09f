import { z } from 'zod'
import { ERROR_CATALOGUE } from './errors.ts'

export interface Envelope<T> {
  code: 0
  message: string
  data: T
}

export const ok = <T>(data: T, message = 'OK'): Envelope<T> => ({ code: 0, message, data })

/** The schemas `envelope` made: the ones an app may switch to pass-through (never ErrorEnvelope). */
const envelopes = new WeakSet<object>()

/**
 * Response schema of a successful envelope around `data`. It documents the response (OpenAPI)
 * and Elysia checks every response against it, unless the app was built with response
 * validation off (`Deps.config.validateResponses`, see `passResponsesThrough`).
 */
export const envelope = <T extends z.ZodType>(data: T) => {
  const schema = z.object({ code: z.literal(0), message: z.string(), data })
  envelopes.add(schema)
  return schema
}

/**
 * Response validation off for one built app: the envelope schemas of its routes pass the value
 * through (their Standard Schema `validate` returns it unchecked); the documentation still
 * reads them. Called by buildApp before the first request, when Elysia creates its validators.
 * The check cost more than the JSON itself on large answers (a 2,000-student grade overview:
 * zod 38 ms, JSON.stringify 13 ms). Every route builds its own envelopes, so other apps in the
 * same process keep theirs.
 */
export function passResponsesThrough(routes: readonly { hooks?: { response?: unknown } }[]) {
  const passThrough = (schema: unknown) => {
    if (!schema || typeof schema !== 'object' || !envelopes.has(schema)) return
    const s = schema as z.ZodType
    s['~standard'] = { ...s['~standard'], validate: (value: unknown) => ({ value }) } as (typeof s)['~standard']
  }
  for (const route of routes) {
    const response = route.hooks?.response
    if (!response || typeof response !== 'object') continue
    if (envelopes.has(response)) passThrough(response)
    else for (const schema of Object.values(response)) passThrough(schema)
  }
}

export const ErrorEnvelope = z
  .object({
    code: z.number().int().refine((c) => Object.values(ERROR_CATALOGUE).some((e) => e.code === c)),
    message: z.string(),
    data: z.union([
      z.null(),
      z.object({ fields: z.array(z.object({ field: z.string(), message: z.string() })) }),
      z.record(z.string(), z.unknown()),
    ]),
  })
  .meta({
    id: 'ErrorEnvelope',
    description:
      "Every error: a catalogue code, a sentence a person can act on (in the user's `locale`, else the best match of Accept-Language: `en` or `zh-CN`), details or null.",
  })

export const Uuid = z.guid({ message: 'must be a UUID' })
export const IsoDateTime = z.string().meta({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' })

/** Serialises a timestamp the one way the API does: ISO-8601, UTC, milliseconds. */
export const iso = (d: Date | string | null | undefined): string | null =>
  d == null ? null : (d instanceof Date ? d : new Date(d)).toISOString()

/** Numeric columns arrive as strings from PostgreSQL. */
export const num = (v: string | number | null | undefined): number | null => (v == null ? null : Number(v))
