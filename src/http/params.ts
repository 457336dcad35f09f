import { z } from 'zod'
import { Uuid } from './envelope.ts'

/** Path parameter schemas shared by feature routes: a non-UUID id is a 400 with a field list. */
export const CourseParams = z.object({ courseId: Uuid })
export const idParams = <K extends string>(...keys: K[]) =>
  z.object(Object.fromEntries(keys.map((k) => [k, Uuid])) as { [P in K]: typeof Uuid })
