import { Elysia } from 'elysia'
import type { Deps } from '../../deps.ts'
import { authPlugin } from '../../http/auth.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { CourseParams } from '../../http/params.ts'
import { ModuleConfig, PutModulesBody } from './model.ts'
import * as service from './service.ts'

export function workspaceRoutes(deps: Deps) {
  const { sql } = deps
  return new Elysia({ prefix: '/courses/:courseId/workspace', tags: ['Workspace'] })
    .use(authPlugin(deps))
    .get('/modules', async ({ params }) => ok(await service.getModules(sql, params.courseId)), {
      params: CourseParams,
      course: 'member',
      response: { 200: envelope(ModuleConfig) },
      detail: {
        summary: 'Workspace modules (members)',
        description:
          'All eight keys ordered by sortOrder (ties in default order). A course that never saved a configuration gets every module ' +
          'enabled, in the order OVERVIEW, LEARNING, HOMEWORK, QUIZ, GRADES, EXPERIMENTS, RESOURCES, ANNOUNCEMENTS (sortOrder 1..8).',
      },
    })
    .put('/modules', async ({ params, body }) => ok(await service.putModules(sql, params.courseId, body), 'Workspace modules saved.'), {
      params: CourseParams,
      course: 'teacher',
      body: PutModulesBody,
      response: { 200: envelope(ModuleConfig) },
      detail: {
        summary: 'Save workspace modules (the course teacher)',
        description:
          'Saves the listed modules (sortOrder 0-1000); unlisted modules keep their saved values or defaults. An unknown or repeated ' +
          'moduleKey → 400 with the offending fields. Returns all eight keys like GET.',
      },
    })
}
