import type { Sql, TxSql } from '../../db/connect.ts'

export type ResourceType = 'FILE' | 'VIDEO' | 'LINK'

export interface ResourceRow {
  id: string
  course_id: string
  name: string
  resource_type: ResourceType
  category: string | null
  external_url: string | null
  file_name: string | null
  file_size: string | null
  content_type: string | null
  created_at: Date
}

export async function insertResource(
  sql: Sql,
  r: {
    id: string
    courseId: string
    name: string
    type: ResourceType
    category: string | null
    externalUrl: string | null
    file: { storageKey: string; fileName: string; fileSize: number; contentType: string } | null
    createdBy: string
    now: Date
  },
) {
  const [row] = await sql<ResourceRow[]>`
    insert into course_resources (id, course_id, name, resource_type, category, external_url,
                                  storage_key, file_name, file_size, content_type, created_by, created_at)
    values (${r.id}, ${r.courseId}, ${r.name}, ${r.type}, ${r.category}, ${r.externalUrl},
            ${r.file?.storageKey ?? null}, ${r.file?.fileName ?? null}, ${r.file?.fileSize ?? null}, ${r.file?.contentType ?? null},
            ${r.createdBy}, ${r.now})
    returning id, course_id, name, resource_type, category, external_url, file_name, file_size, content_type, created_at`
  return row!
}

export interface ResourceFilter {
  type: ResourceType | null
  category: string | null
}

export async function listResources(sql: Sql, courseId: string, f: ResourceFilter, limit: number, offset: number) {
  return sql<ResourceRow[]>`
    select id, course_id, name, resource_type, category, external_url, file_name, file_size, content_type, created_at
      from course_resources
     where course_id = ${courseId}
       and (${f.type}::text is null or resource_type = ${f.type})
       and (${f.category}::text is null or category = ${f.category})
     order by created_at desc, id desc
     limit ${limit} offset ${offset}`
}

export async function countResources(sql: Sql, courseId: string, f: ResourceFilter) {
  const [row] = await sql<{ total: number }[]>`
    select count(*)::int as total
      from course_resources
     where course_id = ${courseId}
       and (${f.type}::text is null or resource_type = ${f.type})
       and (${f.category}::text is null or category = ${f.category})`
  return row!.total
}

export async function findResourceFile(sql: Sql, resourceId: string) {
  const [row] = await sql<
    { course_id: string; resource_type: ResourceType; storage_key: string | null; file_name: string | null; file_size: string | null; content_type: string | null }[]
  >`
    select course_id, resource_type, storage_key, file_name, file_size, content_type
      from course_resources
     where id = ${resourceId}`
  return row ?? null
}

/** Locks the resource row for the rest of the transaction; false when it is not in the course. */
export async function lockResource(tx: TxSql, courseId: string, resourceId: string) {
  const [row] = await tx`select id from course_resources where id = ${resourceId} and course_id = ${courseId} for update`
  return Boolean(row)
}

/**
 * Deletes a resource of a course unless a learning task still points at it, in one statement.
 * `found` false: no such resource in this course; `usedBy` > 0: kept.
 */
export async function deleteResource(sql: Sql | TxSql, courseId: string, resourceId: string) {
  const [row] = await sql<{ found: boolean; used_by: number; deleted: boolean; storage_key: string | null }[]>`
    with target as (
      select id from course_resources where id = ${resourceId} and course_id = ${courseId}
    ), used as (
      select count(*)::int as n from learning_tasks where resource_id = ${resourceId} and course_id = ${courseId}
    ), del as (
      delete from course_resources r
       using target
       where r.id = target.id and (select n from used) = 0
      returning r.storage_key
    )
    select exists (select 1 from target) as found,
           (select n from used) as used_by,
           exists (select 1 from del) as deleted,
           (select storage_key from del) as storage_key`
  return row!
}
