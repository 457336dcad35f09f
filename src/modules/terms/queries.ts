import type { Sql, TxSql } from '../../db/connect.ts'

export interface CopiedFile {
  resourceId: string
  key: string
}

export interface CopyCounts {
  units: number
  points: number
  tasks: number
  experiments: number
  resources: number
  modules: number
}

/** The FILE resources of a course with their stored objects (copied before the transaction). */
export async function fileResourcesOf(sql: Sql | TxSql, courseId: string) {
  return sql<{ id: string; storage_key: string }[]>`
    select id, storage_key from course_resources
     where course_id = ${courseId} and storage_key is not null
     order by id`
}

/**
 * Copies the content of course `from` into the new, empty course `to`, as ONE statement: every
 * level is an INSERT … SELECT over the level above's id map (new ids drawn by gen_uuid_v7 in a
 * materialised CTE), so a course of any size costs the same number of round trips. Foreign keys
 * (task → point → unit, task → resource) are checked at the end of the statement, when every
 * level is in. Homework times and experiment deadlines move by `shiftDays` (whole UTC days).
 * A FILE resource is copied only with its object's copy (`files`); a task whose file was not
 * copied keeps no resource.
 */
export async function copyContent(
  tx: TxSql,
  a: { from: string; to: string; shiftDays: number; files: CopiedFile[]; createdBy: string; now: Date },
): Promise<CopyCounts> {
  // Hours, not days: a day interval would follow the session time zone's daylight-saving shifts.
  const shift = tx`make_interval(hours => ${a.shiftDays * 24}::int)`
  const [row] = await tx<CopyCounts[]>`
    with files as (
      select f.resource_id, f.storage_key
        from unnest(${a.files.map((f) => f.resourceId)}::uuid[], ${a.files.map((f) => f.key)}::text[]) as f (resource_id, storage_key)
    ), resource_map as (
      select r.id as old_id, gen_uuid_v7() as new_id, f.storage_key
        from course_resources r
        left join files f on f.resource_id = r.id
       where r.course_id = ${a.from} and (r.storage_key is null or f.storage_key is not null)
    ), resources as (
      insert into course_resources (id, course_id, name, resource_type, category, external_url,
                                    storage_key, file_name, file_size, content_type, created_by, created_at)
      select m.new_id, ${a.to}, r.name, r.resource_type, r.category, r.external_url,
             m.storage_key, r.file_name, r.file_size, r.content_type, ${a.createdBy}, r.created_at
        from resource_map m join course_resources r on r.id = m.old_id
      returning 1
    ), unit_map as (
      select u.id as old_id, gen_uuid_v7() as new_id from learning_units u where u.course_id = ${a.from}
    ), units as (
      insert into learning_units (id, course_id, title, description, sort_order, created_at)
      select m.new_id, ${a.to}, u.title, u.description, u.sort_order, ${a.now}
        from unit_map m join learning_units u on u.id = m.old_id
      returning 1
    ), point_map as (
      select p.id as old_id, gen_uuid_v7() as new_id, um.new_id as unit_id
        from knowledge_points p join unit_map um on um.old_id = p.unit_id
    ), points as (
      insert into knowledge_points (id, unit_id, course_id, title, description, sort_order, created_at)
      select m.new_id, m.unit_id, ${a.to}, p.title, p.description, p.sort_order, ${a.now}
        from point_map m join knowledge_points p on p.id = m.old_id
      returning 1
    ), tasks as (
      insert into learning_tasks (id, point_id, course_id, title, task_kind, task_type, material_type, content, url,
                                  resource_id, questions, start_at, due_at, notify_on_start, notify_before_due_24h,
                                  notify_on_due, sort_order, created_at, publish_state, publish_at, published_at,
                                  grade_release, rubric)
      select gen_uuid_v7(), pm.new_id, ${a.to}, t.title, t.task_kind, t.task_type, t.material_type, t.content, t.url,
             rm.new_id, t.questions, t.start_at + ${shift}, t.due_at + ${shift}, t.notify_on_start, t.notify_before_due_24h,
             t.notify_on_due, t.sort_order, ${a.now},
             -- Drafts stay drafts, a schedule moves with the term, retired (unpublished) work comes back as a draft.
             case t.publish_state when 'UNPUBLISHED' then 'DRAFT' else t.publish_state end,
             t.publish_at + ${shift},
             case when t.publish_state = 'PUBLISHED' then ${a.now}::timestamptz end,
             -- How grades are released and the rubric come along (issue 54); a quiz rubric's
             -- question ids stay right, the questions are copied with their ids.
             t.grade_release, t.rubric
        from learning_tasks t
        join point_map pm on pm.old_id = t.point_id
        left join resource_map rm on rm.old_id = t.resource_id
      returning 1
    ), experiments as (
      insert into experiments (id, course_id, title, description, due_at, created_at, grade_release, rubric)
      select gen_uuid_v7(), ${a.to}, e.title, e.description, e.due_at + ${shift}, ${a.now}, e.grade_release, e.rubric
        from experiments e where e.course_id = ${a.from}
      returning 1
    ), modules as (
      insert into workspace_modules (course_id, module_key, enabled, sort_order)
      select ${a.to}, w.module_key, w.enabled, w.sort_order from workspace_modules w where w.course_id = ${a.from}
      returning 1
    )
    select (select count(*) from units)::int as units,
           (select count(*) from points)::int as points,
           (select count(*) from tasks)::int as tasks,
           (select count(*) from experiments)::int as experiments,
           (select count(*) from resources)::int as resources,
           (select count(*) from modules)::int as modules`
  return row!
}

export interface NewestSubmissionRow {
  username: string
  display_name: string
  storage_key: string
  file_name: string
  file_size: string
  submitted_at: Date
  late: boolean
  score: string | null
  /** The submission's further files (positions 2…, submission_files), in order. */
  more: { storage_key: string; file_name: string; file_size: string }[]
}

/** The experiment of the course, or null (an experiment of another course is unknown here). */
export async function experimentOfCourse(sql: Sql, courseId: string, experimentId: string) {
  const [row] = await sql<{ id: string; title: string }[]>`
    select id, title from experiments where id = ${experimentId} and course_id = ${courseId}`
  return row ?? null
}

/**
 * Each current student's newest submission to the experiment, by username: one keyed probe per
 * student of the roster (experiment_submissions_exp_student_idx).
 */
export async function newestSubmissions(sql: Sql, courseId: string, experimentId: string) {
  return sql<NewestSubmissionRow[]>`
    select m.username, m.display_name, s.storage_key, s.file_name, s.file_size, s.submitted_at, s.late, s.score,
           coalesce((select json_agg(json_build_object('storage_key', f.storage_key, 'file_name', f.file_name, 'file_size', f.file_size::text)
                                     order by f.position)
                       from submission_files f where f.experiment_submission_id = s.id), '[]') as more
      from course_members m
      cross join lateral (
        select s.id, s.storage_key, s.file_name, s.file_size, s.submitted_at, s.late, s.score
          from experiment_submissions s
         where s.experiment_id = ${experimentId} and s.student_id = m.user_id
         order by s.submitted_at desc, s.id desc
         limit 1) s
     where m.course_id = ${courseId}
     order by lower(m.username), m.username`
}
