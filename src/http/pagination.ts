import { z } from 'zod'

export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
})
export type PageQuery = z.infer<typeof PageQuery>

export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number().int(), page: z.number().int(), pageSize: z.number().int() })

export interface Page<T> {
  items: T[]
  total: number
  page: number
  pageSize: number
}

export const offsetOf = (q: PageQuery) => (q.page - 1) * q.pageSize

export const page = <T>(items: T[], total: number, q: PageQuery): Page<T> => ({ items, total, page: q.page, pageSize: q.pageSize })

/**
 * Optional paging of a list that used to come back whole (the course overviews): without
 * `page` and `pageSize` everything is returned, as before; with either, one page (page 1 and
 * pageSize 50 unless given, at most 200).
 */
export const OptionalPageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).optional(),
  pageSize: z.coerce.number().int().min(1).max(200).optional(),
})
export type OptionalPageQuery = z.infer<typeof OptionalPageQuery>

/** The window of rows to read (null: every row) and the `page` / `pageSize` to report. */
export function windowOf(q: OptionalPageQuery) {
  if (q.page === undefined && q.pageSize === undefined) return { window: null, page: 1, pageSize: null }
  const p: PageQuery = { page: q.page ?? 1, pageSize: q.pageSize ?? 50 }
  return { window: { limit: p.pageSize, offset: offsetOf(p) }, page: p.page, pageSize: p.pageSize }
}
export type RowWindow = { limit: number; offset: number } | null

/** Fields added to a paged overview: `pageSize` is null when the caller did not ask for a page. */
export const pageFields = {
  total: z.number().int().meta({ description: 'Students in the whole list.' }),
  page: z.number().int().meta({ description: 'The page returned (1 when not paged).' }),
  pageSize: z.number().int().nullable().meta({ description: 'Students per page; null when `page` and `pageSize` were not given and every student is returned.' }),
}
