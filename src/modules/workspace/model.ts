import { z } from 'zod'

/** The workspace sections, in their default order. */
export const MODULE_KEYS = ['OVERVIEW', 'LEARNING', 'HOMEWORK', 'QUIZ', 'GRADES', 'EXPERIMENTS', 'RESOURCES', 'ANNOUNCEMENTS'] as const
export type ModuleKey = (typeof MODULE_KEYS)[number]

export const ModuleKeySchema = z.enum(MODULE_KEYS)
export const SORT_ORDER_MAX = 1000

export const WorkspaceModule = z
  .object({
    moduleKey: ModuleKeySchema,
    enabled: z.boolean(),
    sortOrder: z.number().int().min(0).max(SORT_ORDER_MAX),
  })
  .meta({ id: 'WorkspaceModule' })
export type WorkspaceModule = z.infer<typeof WorkspaceModule>

export const PutModulesBody = z
  .object({
    modules: z
      .array(
        z.object({
          moduleKey: ModuleKeySchema,
          enabled: z.boolean(),
          sortOrder: z
            .number()
            .int('must be a whole number')
            .min(0, `must be between 0 and ${SORT_ORDER_MAX}`)
            .max(SORT_ORDER_MAX, `must be between 0 and ${SORT_ORDER_MAX}`),
        }),
      )
      .min(1, 'list at least one module')
      .max(MODULE_KEYS.length, `list at most ${MODULE_KEYS.length} modules`),
  })
  .superRefine((body, ctx) => {
    const seen = new Set<string>()
    body.modules.forEach((m, i) => {
      if (seen.has(m.moduleKey)) {
        ctx.addIssue({ code: 'custom', path: ['modules', i, 'moduleKey'], message: `${m.moduleKey} is listed more than once` })
      }
      seen.add(m.moduleKey)
    })
  })
export type PutModulesBody = z.infer<typeof PutModulesBody>

export const ModuleConfig = z.object({ modules: z.array(WorkspaceModule) }).meta({ id: 'WorkspaceModules' })
