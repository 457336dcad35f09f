import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Deps } from '../../deps.ts'
import { authPlugin } from '../../http/auth.ts'
import { envelope, ok, Uuid } from '../../http/envelope.ts'
import { page, pageOf } from '../../http/pagination.ts'
import { CourseParams } from '../../http/params.ts'
import { DownloadQuery, fileResponse } from '../../storage/download.ts'
import { downloadResponses, multipartRequestBody } from '../../storage/openapi.ts'
import { parseForm, readMultipart } from '../../storage/upload.ts'
import { CourseResourceParams, Resource, ResourceForm, ResourceParams, ResourceQuery } from './model.ts'
import * as service from './service.ts'

export function resourceRoutes(deps: Deps) {
  const { sql, clock, storage, config, log } = deps
  return new Elysia({ tags: ['Resources'] })
    .use(authPlugin(deps))
    .post(
      '/courses/:courseId/resources',
      async ({ course, user, request, set }) => {
        // The course macro has checked the teacher before the upload is read.
        const upload = await readMultipart(request, config.maxUploadBytes, storage)
        let resource
        try {
          resource = await service.createResource(sql, storage, {
            courseId: course.id,
            teacherId: user.id,
            form: parseForm(ResourceForm, upload.fields),
            maxUploadBytes: config.maxUploadBytes,
            now: clock.now(),
          })
        } catch (e) {
          await upload.discard()
          throw e
        }
        set.status = 201
        return ok(resource, 'Resource created.')
      },
      {
        course: 'teacher',
        parse: 'none',
        params: CourseParams,
        response: { 201: envelope(Resource) },
        detail: {
          summary: 'Publish a course resource (course teacher)',
          description:
            'multipart/form-data: `name`, `type` (FILE, VIDEO, LINK), optional `category`; FILE needs `file` (at most MAX_UPLOAD_BYTES), VIDEO and LINK need `externalUrl` (parsed; http and https only, anything else is 400).',
          requestBody: multipartRequestBody(ResourceForm),
        },
      },
    )
    .get(
      '/courses/:courseId/resources',
      async ({ course, query }) => {
        const { items, total } = await service.listResources(sql, course.id, query)
        return ok(page(items, total, query))
      },
      {
        course: 'member',
        params: CourseParams,
        query: ResourceQuery,
        response: { 200: envelope(pageOf(Resource)) },
        detail: { summary: 'List course resources (members)', description: 'Newest first; filter by `type` and exact `category`.' },
      },
    )
    .get(
      '/resources/:resourceId/file',
      async ({ user, params, request }) => fileResponse(storage, request, await service.resourceFile(sql, params.resourceId, user), log),
      {
        auth: true,
        params: ResourceParams,
        query: DownloadQuery,
        detail: {
          summary: 'Download a FILE resource (members of its course)',
          description: 'Supports single byte ranges so videos can seek. VIDEO and LINK resources have no file (404).',
          responses: downloadResponses,
        },
      },
    )
    .delete(
      '/courses/:courseId/resources/:resourceId',
      async ({ course, params }) => ok(await service.deleteResource(sql, storage, course.id, params.resourceId, log), 'Resource deleted.'),
      {
        course: 'teacher',
        params: CourseResourceParams,
        response: { 200: envelope(z.object({ id: Uuid })) },
        detail: {
          summary: 'Delete a course resource (course teacher)',
          description: 'The stored file is removed too. 409 while a learning task still uses the resource.',
        },
      },
    )
}
