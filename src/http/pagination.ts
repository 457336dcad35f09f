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
