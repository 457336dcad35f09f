/**
 * Seeds the benchmark dataset with set-based SQL: a handful of bulk `sql(rows)` inserts for
 * the rows decided in JS (users, courses, memberships) and INSERT … SELECT over
 * generate_series for everything that fans out (structure, submissions, reminder events,
 * notifications). One transaction, one connection, seeded `random()`.
 *
 * Every timestamp is relative to an *anchor* (the seed time, stored in `bench_seed`); the
 * benchmark runs the app on a clock that starts at the anchor, so a reused dataset has the
 * same overdue / in-progress / not-started mix on every run. Anything the benchmark creates
 * is newer than the anchor, which is how `restore()` removes it again.
 *
 * Standalone: `DATABASE_URL=... bun run bench/seed.ts [--force]`.
 */
import postgres from 'postgres'
import type { Sql, TxSql } from '../src/db/connect.ts'
import { migrate } from '../src/db/migrate.ts'
import { randomInviteCode } from '../src/modules/courses/invite-code.ts'
import { TYPE_NAMES } from '../src/modules/notifications/types.ts'

export const SEED_VERSION = 3
export const BENCH_PASSWORD = 'bench-password-1'

/** A session token of the bench account `identifier` from the service at `base` (…/api/v1). */
export async function benchLogin(base: string, identifier: string): Promise<string> {
  const res = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identifier, password: BENCH_PASSWORD }) })
  const token = ((await res.json()) as { data?: { accessToken?: string } }).data?.accessToken
  if (!token) throw new Error(`login ${identifier} on ${base}: ${res.status}`)
  return token
}
/** A seed older than this is redone: session JWTs carry a real-time `exp` (bench TTL 90 days). */
const MAX_SEED_AGE_DAYS = 60

export interface Shape {
  name: 'quick' | 'campus' | 'mooc'
  teachers: number
  students: number
  courses: number
  /** Course 0 has this many students when set (the one large course); the rest spread min..max. */
  bigCourseSize?: number
  minCourseSize: number
  maxCourseSize: number
  /** Each student is in 3, 4 or 5 courses. */
  coursesPerStudent: readonly [number, number]
  unitsPerCourse: number
  pointsPerUnit: number
  tasksPerPoint: number // the last task of each point is HOMEWORK
  experimentsPerCourse: number
  announcementsPerCourse: number
  /** Students topped up to this many notifications and given this many older answer sheets (history). */
  heavyUsers: number
  heavyNotifications: number
  heavySubmissions: number
  /**
   * mooc: one more course ("MOOC", its own teacher) of this many learners who are in no other
   * course, plus the first seeded student (in 3-5 seminars as well): `moocLearners + 1` members.
   * Same structure as a seminar; the learners answer the first unit's learning tasks at 20 %,
   * 10 % of them want every notification by e-mail (verified addresses).
   */
  moocLearners?: number
}

export const SHAPES: Record<Shape['name'], Shape> = {
  quick: {
    name: 'quick',
    teachers: 20,
    students: 2_000,
    courses: 40,
    minCourseSize: 100,
    maxCourseSize: 300,
    coursesPerStudent: [3, 5],
    unitsPerCourse: 5,
    pointsPerUnit: 4,
    tasksPerPoint: 5, // the 5th task of each point is HOMEWORK: 20 %
    experimentsPerCourse: 4,
    announcementsPerCourse: 3,
    heavyUsers: 0,
    heavyNotifications: 0,
    heavySubmissions: 0,
  },
  // ~2 M learning submissions, ~2.4 M reminder events, 16 students with 10,000 notifications.
  campus: {
    name: 'campus',
    teachers: 200,
    students: 20_000,
    courses: 400,
    bigCourseSize: 2_000,
    minCourseSize: 100,
    maxCourseSize: 300,
    coursesPerStudent: [3, 5],
    unitsPerCourse: 5,
    pointsPerUnit: 2,
    tasksPerPoint: 5,
    experimentsPerCourse: 4,
    announcementsPerCourse: 3,
    heavyUsers: 16,
    heavyNotifications: 10_000,
    heavySubmissions: 10_000,
  },
  // The quick dataset (seminars of 100-300) plus one open course of 100,001 students (issue 26).
  mooc: {
    name: 'mooc',
    teachers: 20,
    students: 2_000,
    courses: 40,
    minCourseSize: 100,
    maxCourseSize: 300,
    coursesPerStudent: [3, 5],
    unitsPerCourse: 5,
    pointsPerUnit: 4,
    tasksPerPoint: 5,
    experimentsPerCourse: 4,
    announcementsPerCourse: 3,
    heavyUsers: 0,
    heavyNotifications: 0,
    heavySubmissions: 0,
    moocLearners: 100_000,
  },
}

const shapeName = (process.env.BENCH_SHAPE ?? 'quick') as Shape['name']
if (!(shapeName in SHAPES)) throw new Error(`BENCH_SHAPE must be one of ${Object.keys(SHAPES).join(', ')}`)
export const SHAPE: Shape = SHAPES[shapeName]


export interface SeedInfo {
  anchor: Date
  seededAt: Date
  seconds: number
  reused: boolean
}

const DAY = 24 * 3600 * 1000

/** Small deterministic PRNG (mulberry32) so the membership graph is the same on every seed. */
function prng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Course sizes spread evenly from 100 to 300 (course 0 is the 300-student course) and each
 * student in 3-5 courses; the membership graph is built greedily (largest course first takes
 * the students with the most free slots), which realises any feasible pair of degree lists.
 */
export function membershipPlan() {
  const rnd = prng(20_261_122)
  const n = SHAPE.courses
  const spread = (i: number, k: number) => Math.round(SHAPE.maxCourseSize - ((SHAPE.maxCourseSize - SHAPE.minCourseSize) * i) / (k - 1))
  const sizes = SHAPE.bigCourseSize
    ? [SHAPE.bigCourseSize, ...Array.from({ length: n - 1 }, (_, i) => spread(i, n - 1))]
    : Array.from({ length: n }, (_, i) => spread(i, n))
  const total = sizes.reduce((a, b) => a + b, 0)
  const [lo, hi] = SHAPE.coursesPerStudent
  const cap = Array.from({ length: SHAPE.students }, (_, j) => lo + (j % (hi - lo + 1)))
  let sum = cap.reduce((a, b) => a + b, 0)
  for (let j = 0; sum !== total; j = (j + 1) % cap.length) {
    if (sum > total && cap[j]! > lo) (cap[j]!--, sum--)
    else if (sum < total && cap[j]! < hi) (cap[j]!++, sum++)
  }
  const left = [...cap]
  const members: number[][] = []
  for (let c = 0; c < n; c++) {
    const order = Array.from({ length: SHAPE.students }, (_, j) => j)
    for (let i = order.length - 1; i > 0; i--) {
      const k = Math.floor(rnd() * (i + 1))
      ;[order[i], order[k]] = [order[k]!, order[i]!]
    }
    order.sort((a, b) => left[b]! - left[a]!) // stable: random among equals
    const chosen = order.slice(0, sizes[c]).filter((j) => left[j]! > 0)
    for (const j of chosen) left[j]!--
    members.push(chosen)
  }
  return { sizes, members }
}

async function hasTable(sql: Sql, name: string) {
  const [row] = await sql<{ ok: boolean }[]>`select to_regclass(${name}) is not null as ok`
  return row!.ok
}

/**
 * Migrates, then reuses a current bench seed or seeds. Refuses to wipe a database that holds
 * data but was never seeded by this script, unless `force` (BENCH_RESEED=1).
 */
export async function ensureSeeded(sql: Sql, opts: { force?: boolean; log?: (m: string) => void } = {}): Promise<SeedInfo> {
  const log = opts.log ?? (() => {})
  const applied = await migrate(sql)
  await sql`create table if not exists bench_seed (
      version integer not null, anchor timestamptz not null, seeded_at timestamptz not null, seconds numeric not null)`
  await sql`alter table bench_seed add column if not exists shape text not null default 'quick'`
  const [meta] = await sql<{ version: number; anchor: Date; seeded_at: Date; seconds: string; shape: string }[]>`
    select version, anchor, seeded_at, seconds, shape from bench_seed order by seeded_at desc limit 1`
  const fresh = meta && meta.version === SEED_VERSION && meta.shape === SHAPE.name && Date.now() - meta.anchor.getTime() < MAX_SEED_AGE_DAYS * DAY
  if (fresh && !opts.force) {
    log(`reusing the ${SHAPE.name} dataset seeded at ${meta.seeded_at.toISOString()} (anchor ${meta.anchor.toISOString()})`)
    // Migrations applied to the dataset may have rewritten rows (a backfill): without a vacuum
    // (autovacuum may be off) index-only scans go to the heap again. As at the end of a seed.
    if (applied.length) {
      log(`vacuum analyze after ${applied.join(', ')}`)
      await sql.unsafe('vacuum analyze')
    }
    return { anchor: meta.anchor, seededAt: meta.seeded_at, seconds: Number(meta.seconds), reused: true }
  }
  const [users] = await sql<{ n: number }[]>`select count(*)::int as n from users`
  const n = users!.n
  if (n > 0 && !meta && !opts.force) {
    throw new Error('This database holds data that the benchmark did not seed. Point DATABASE_URL at an empty database, or set BENCH_RESEED=1 to wipe it.')
  }
  log(n > 0 ? 'wiping the old bench dataset and seeding again' : 'seeding an empty database')
  return seed(sql, log)
}

export async function seed(sql: Sql, log: (m: string) => void = () => {}): Promise<SeedInfo> {
  const started = performance.now()
  // Whole seconds, so timestamps in the report read well.
  const anchor = new Date(Math.floor(Date.now() / 1000) * 1000)
  const step = async (name: string, f: () => Promise<unknown>) => {
    const t = performance.now()
    const r = await f()
    const n = typeof r === 'object' && r && 'count' in r ? (r as { count: unknown }).count : null
    const count = typeof n === 'number' ? ` (${n} rows)` : ''
    log(`  ${name}${count}: ${((performance.now() - t) / 1000).toFixed(1)} s`)
  }
  const passwordHash = await Bun.password.hash(BENCH_PASSWORD, { algorithm: 'argon2id' })
  const { sizes, members } = membershipPlan()

  await sql.begin(async (tx) => {
    await tx`set local synchronous_commit = off`
    await tx`set local work_mem = '64MB'`
    await tx`select setseed(0.4242)`
    await tx`truncate users, homework_reminder_events, notifications, email_outbox, login_throttle, bench_seed cascade`

    // --- users, courses, memberships: decided in JS, written in bulk ---------------------------
    const ago = (days: number) => new Date(anchor.getTime() - days * DAY)
    const teachers = Array.from({ length: SHAPE.teachers }, (_, i) => {
      const name = `bench_t${String(i + 1).padStart(2, '0')}`
      return { id: Bun.randomUUIDv7(), username: name, email: `${name}@bench.test`, password_hash: passwordHash,
        display_name: `Teacher ${i + 1}`, role: 'TEACHER', created_at: ago(200) }
    })
    const students = Array.from({ length: SHAPE.students }, (_, i) => {
      const name = `bench_s${String(i + 1).padStart(4, '0')}`
      return { id: Bun.randomUUIDv7(), username: name, email: `${name}@bench.test`, password_hash: passwordHash,
        display_name: `Student ${String(i + 1).padStart(4, '0')}`, role: 'STUDENT', created_at: ago(150 - (i % 30)) }
    })
    await step('users', async () => {
      const all = [...teachers, ...students]
      for (let i = 0; i < all.length; i += 5_000) await tx`insert into users ${tx(all.slice(i, i + 5_000))}`
      return { count: all.length }
    })
    // Live logins (two devices per user; housekeeping deletes expired and revoked ones hourly),
    // so the per-request session lookup runs against a table of realistic size.
    await step('sessions', () => tx`
      insert into sessions (id, user_id, created_at, expires_at, user_agent, ip)
      select gen_uuid_v7(), u.id, x.created_at, x.created_at + interval '7 days', 'Mozilla/5.0 (bench)', '10.0.' || d || '.' || (random() * 250)::int
        from users u cross join generate_series(1, 2) d
       cross join lateral (select ${anchor}::timestamptz - random() * interval '6 days' - interval '1 minute' as created_at) x`)
    const courses = sizes.map((_, i) => ({
      id: Bun.randomUUIDv7(),
      teacher_id: teachers[i % SHAPE.teachers]!.id,
      title: `Course ${String(i + 1).padStart(2, '0')}`,
      description: `Benchmark course ${i + 1} with ${sizes[i]} students.`,
      invite_code: randomInviteCode(),
      joining_open: true,
      created_at: ago(120),
    }))
    await step('courses', () => tx`insert into courses ${tx(courses)}`)
    const memberRows = members.flatMap((list, c) =>
      list.map((j, k) => ({ course_id: courses[c]!.id, user_id: students[j]!.id, joined_at: new Date(ago(120).getTime() + ((k * 7919) % 10) * DAY + k * 1000) })),
    )
    await step('course_members', async () => {
      for (let i = 0; i < memberRows.length; i += 10_000) await tx`insert into course_members ${tx(memberRows.slice(i, i + 10_000))}`
      return { count: memberRows.length }
    })

    // --- learning structure: 5 units × 4 points × 5 tasks per course --------------------------
    await structure(tx, anchor, null, step)

    // --- learning submissions: most students, fewer in later units; ~10 % resubmit -----------
    await step('learning_submissions', () => tx`
      with pairs as materialized (
        select t.id as task_id, t.course_id, m.user_id, t.task_kind, t.task_type, t.questions, t.start_at, t.due_at,
               c.teacher_id, c.created_at as course_start, lu.sort_order as unit_no,
               random() as r1, random() as r2, random() as r3, random() as r4, random() as r5, random() as r6
          from learning_tasks t
          join knowledge_points kp on kp.id = t.point_id
          join learning_units lu on lu.id = kp.unit_id
          join courses c on c.id = t.course_id
          join course_members m on m.course_id = t.course_id
      ), chosen as materialized (
        select p.*,
               case when p.task_kind = 'LEARNING'
                    then least(p.course_start + (p.unit_no - 1) * interval '14 days' + p.r2 * interval '20 days',
                               ${anchor}::timestamptz - interval '1 minute')
                    when p.r3 < 0.08 and p.due_at < ${anchor}::timestamptz - interval '2 days'
                    then p.due_at + p.r2 * interval '2 days'
                    else p.start_at + p.r2 * (least(p.due_at, ${anchor}::timestamptz) - p.start_at)
               end as at,
               (p.r4 < 0.7) as q1_right, (p.r5 < 0.6) as q2_right
          from pairs p
         where p.r1 < case when p.task_kind = 'LEARNING' then (array[0.85, 0.7, 0.5, 0.3, 0.15])[p.unit_no]
                           when p.start_at > ${anchor}::timestamptz then 0
                           when p.due_at < ${anchor}::timestamptz then 0.85
                           else 0.4 end
      )
      insert into learning_submissions (id, task_id, course_id, student_id, content, answers, auto_score, score, feedback,
                                        status, late, submitted_at, graded_at, graded_by)
      select gen_uuid_v7(), ch.task_id, ch.course_id, ch.user_id,
             case when ch.task_type = 'MEDIA' then '<p>My answer to this task, with a short explanation.</p>' end,
             case when ch.task_type = 'QUIZ' then jsonb_build_array(
               jsonb_build_object('questionId', ch.questions->0->>'id', 'selectedOptions',
                                  case when ch.q1_right then '[1]'::jsonb else '[0]'::jsonb end, 'text', null),
               jsonb_build_object('questionId', ch.questions->1->>'id', 'selectedOptions',
                                  case when ch.q2_right then '[0, 2]'::jsonb else '[0]'::jsonb end, 'text', null)) end,
             g.auto, coalesce(g.auto, g.teacher_score),
             case when g.teacher_score is not null then '<p>Good work; see the notes on question 2.</p>' end,
             case when g.auto is not null or g.teacher_score is not null then 'GRADED' else 'SUBMITTED' end,
             ch.due_at is not null and ch.at > ch.due_at,
             ch.at,
             case when g.auto is not null then ch.at when g.teacher_score is not null then least(ch.at + interval '1 day', ${anchor}::timestamptz) end,
             case when g.teacher_score is not null then ch.teacher_id end
        from chosen ch
       cross join lateral (
         select case when ch.task_type = 'QUIZ' then round(((ch.q1_right::int) * 1 + (ch.q2_right::int) * 2) * 100.0 / 3, 2) end as auto,
                case when ch.task_type = 'MEDIA' and ch.r6 < 0.6 and ch.at < ${anchor}::timestamptz - interval '1 day'
                     then round((50 + ch.r6 * 80)::numeric, 2) end as teacher_score
       ) g`)
    await step('learning_submissions (resubmissions)', () => tx`
      insert into learning_submissions (id, task_id, course_id, student_id, content, answers, auto_score, score,
                                        status, late, submitted_at)
      select gen_uuid_v7(), s.task_id, s.course_id, s.student_id, '<p>A better answer, second attempt.</p>', null, null, null,
             'SUBMITTED', s.late, least(s.submitted_at + interval '3 hours', ${anchor}::timestamptz - interval '1 second')
        from learning_submissions s
       where s.content is not null and random() < 0.1`)

    // --- experiments and their file submissions ------------------------------------------------
    await step('experiments', () => tx`
      insert into experiments (id, course_id, title, description, due_at, created_at)
      select gen_uuid_v7(), c.id, 'Experiment ' || e, '<p>Build it, measure it, write it up.</p>',
             ${anchor}::timestamptz + (array[-30, -10, 5, 20])[e] * interval '1 day', c.created_at + interval '2 days'
        from courses c cross join generate_series(1, ${SHAPE.experimentsPerCourse}) e`)
    await step('experiment_submissions', () => tx`
      with pairs as materialized (
        select x.id as experiment_id, x.course_id, x.due_at, m.user_id, c.teacher_id, random() as r1, random() as r2
          from experiments x
          join courses c on c.id = x.course_id
          join course_members m on m.course_id = x.course_id
      )
      insert into experiment_submissions (id, experiment_id, course_id, student_id, storage_key, file_name, file_size,
                                          content_type, note, late, submitted_at, score, feedback, graded_at, graded_by)
      select gen_uuid_v7(), p.experiment_id, p.course_id, p.user_id, 'bench-' || gen_random_uuid(), 'report.pdf',
             100000 + (p.r2 * 900000)::int, 'application/pdf', 'Report attached.', false, s.at,
             g.score, case when g.score is not null then 'Well measured.' end,
             case when g.score is not null then s.at + interval '2 days' end,
             case when g.score is not null then p.teacher_id end
        from pairs p
       cross join lateral (select least(p.due_at - p.r2 * interval '6 days', ${anchor}::timestamptz - interval '1 minute') as at) s
       cross join lateral (select case when p.due_at < ${anchor}::timestamptz - interval '3 days' and p.r2 < 0.6
                                       then round((55 + p.r2 * 70)::numeric, 2) end as score) g
       where p.r1 < case when p.due_at < ${anchor}::timestamptz then 0.8 else 0.3 end`)

    // --- reminder events, as the app would have generated and dispatched them ----------------
    // Past triggers were dispatched (sent) unless the student had submitted before a
    // BEFORE_DUE_24H / DUE trigger (canceled); future triggers are pending.
    await step('homework_reminder_events', () => tx`
      with ev as materialized (
        select t.id as task_id, m.user_id, tr.trigger_type, tr.scheduled_at, t.created_at,
               tr.scheduled_at <= ${anchor}::timestamptz as past,
               tr.trigger_type <> 'START' and exists (
                 select 1 from learning_submissions s
                  where s.task_id = t.id and s.student_id = m.user_id and s.submitted_at <= tr.scheduled_at) as submitted_before
          from learning_tasks t
          join course_members m on m.course_id = t.course_id
         cross join lateral (values ('START', t.start_at), ('BEFORE_DUE_24H', t.due_at - interval '24 hours'), ('DUE', t.due_at))
               as tr (trigger_type, scheduled_at)
         where t.task_kind = 'HOMEWORK'
      )
      insert into homework_reminder_events (id, task_id, target_user_id, trigger_type, scheduled_at, sent_at, canceled, created_at)
      select gen_uuid_v7(), ev.task_id, ev.user_id, ev.trigger_type, ev.scheduled_at,
             case when ev.past and not ev.submitted_before then ev.scheduled_at + interval '30 seconds' end,
             ev.past and ev.submitted_before, ev.created_at
        from ev`)

    // --- notifications: delivered reminders, announcements, graded answer sheets --------------
    await step('notifications (reminders)', () => tx`
      insert into notifications (id, user_id, notification_type, title, content, action_path, read_at, delivered_at, event_id)
      select gen_uuid_v7(), e.target_user_id, 'HOMEWORK_REMINDER',
             case e.trigger_type when 'START' then 'Homework open: ' || t.title
                                 when 'BEFORE_DUE_24H' then 'Homework due in 24 hours: ' || t.title
                                 else 'Homework due now: ' || t.title end,
             '"' || t.title || '" in ' || c.title || ' is due ' || to_char(t.due_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI "UTC"') || '.',
             '/courses/' || t.course_id || '?taskId=' || t.id,
             case when e.sent_at < ${anchor}::timestamptz - interval '2 days' and random() < 0.85
                  then e.sent_at + random() * interval '1 day' end,
             e.sent_at, e.id
        from homework_reminder_events e
        join learning_tasks t on t.id = e.task_id
        join courses c on c.id = t.course_id
       where e.sent_at is not null`)
    await step('announcements', () => tx`
      insert into announcements (id, course_id, author_id, title, content, created_at, updated_at)
      select gen_uuid_v7(), c.id, c.teacher_id, 'Announcement ' || a, '<p>Please read this before the next class.</p>',
             ${anchor}::timestamptz - (array[60, 20, 1])[a] * interval '1 day',
             ${anchor}::timestamptz - (array[60, 20, 1])[a] * interval '1 day'
        from courses c cross join generate_series(1, ${SHAPE.announcementsPerCourse}) a`)
    await step('notifications (announcements)', () => tx`
      insert into notifications (id, user_id, notification_type, title, content, action_path, read_at, delivered_at)
      select gen_uuid_v7(), m.user_id, 'ANNOUNCEMENT', 'New announcement in ' || c.title, a.title, '/courses/' || c.id,
             case when a.created_at < ${anchor}::timestamptz - interval '2 days' and random() < 0.85
                  then a.created_at + random() * interval '1 day' end,
             a.created_at
        from announcements a
        join courses c on c.id = a.course_id
        join course_members m on m.course_id = a.course_id`)
    await step('notifications (graded, last 14 days)', () => tx`
      insert into notifications (id, user_id, notification_type, title, content, action_path, read_at, delivered_at)
      select gen_uuid_v7(), s.student_id, 'SUBMISSION_GRADED', 'Graded: ' || t.title,
             'Your answer sheet for "' || t.title || '" was graded: ' || s.score || '/100.',
             '/courses/' || s.course_id || '?taskId=' || s.task_id,
             case when s.graded_at < ${anchor}::timestamptz - interval '2 days' and random() < 0.85
                  then s.graded_at + random() * interval '1 day' end,
             s.graded_at
        from learning_submissions s
        join learning_tasks t on t.id = s.task_id
       where s.graded_by is not null and s.graded_at > ${anchor}::timestamptz - interval '14 days'`)

    // --- history: the heaviest users (the first students of course 0 who are in 5 courses) ----
    // get a long history: topped up to heavyNotifications notifications (older, mostly read)
    // and heavySubmissions earlier attempts on the tasks they answered.
    if (SHAPE.heavyUsers > 0) {
      await tx`create temporary table heavy_users on commit drop as
        select m.user_id from course_members m join users u on u.id = m.user_id
         where m.course_id = ${courses[0]!.id} and (select count(*) from course_members x where x.user_id = m.user_id) = ${SHAPE.coursesPerStudent[1]}
         order by u.username limit ${SHAPE.heavyUsers}`
      await step('notifications (history of the heaviest users)', () => tx`
        insert into notifications (id, user_id, notification_type, title, content, action_path, read_at, delivered_at)
        select gen_uuid_v7(), h.user_id, 'ANNOUNCEMENT', 'Old announcement ' || g, 'From an earlier term.', '/courses',
               case when g % 20 <> 0 then x.at + interval '1 hour' end, x.at
          from heavy_users h
         cross join lateral (select count(*)::int as n from notifications n where n.user_id = h.user_id) c
         cross join lateral generate_series(1, greatest(0, ${SHAPE.heavyNotifications} - c.n)) g
         cross join lateral (select ${anchor}::timestamptz - interval '3 days' - g * interval '20 minutes' as at) x`)
      await step('learning_submissions (history of the heaviest users)', () => tx`
        with firsts as materialized (
          select distinct on (s.task_id, s.student_id) s.*
            from learning_submissions s join heavy_users h on h.user_id = s.student_id
           order by s.task_id, s.student_id, s.submitted_at, s.id
        ), per as (select student_id, count(*)::int as n from firsts group by student_id)
        insert into learning_submissions (id, task_id, course_id, student_id, content, answers, auto_score, score,
                                          status, late, submitted_at, graded_at)
        select gen_uuid_v7(), f.task_id, f.course_id, f.student_id, f.content, f.answers, f.auto_score, f.auto_score,
               case when f.auto_score is not null then 'GRADED' else 'SUBMITTED' end, false,
               f.submitted_at - g * interval '1 minute',
               case when f.auto_score is not null then f.submitted_at - g * interval '1 minute' end
          from firsts f join per p on p.student_id = f.student_id
         cross join lateral generate_series(1, ceil(${SHAPE.heavySubmissions}::numeric / p.n)::int) g`)
    }

    // --- mooc: one open course of moocLearners + 1 students -------------------------------------
    const learners = SHAPE.moocLearners ?? 0
    if (learners > 0) {
      const teacher = { id: Bun.randomUUIDv7(), username: 'bench_tmooc', email: 'bench_tmooc@bench.test', password_hash: passwordHash,
        display_name: 'MOOC Teacher', role: 'TEACHER', created_at: ago(200) }
      await tx`insert into users ${tx([teacher])}`
      const mooc = { id: Bun.randomUUIDv7(), teacher_id: teacher.id, title: 'MOOC', description: `Open course with ${learners + 1} students.`,
        invite_code: randomInviteCode(), joining_open: true, created_at: ago(120) }
      await step('mooc: course', () => tx`insert into courses ${tx([mooc])}`)
      await step('mooc: learners', () => tx`
        insert into users (id, username, email, password_hash, display_name, role, created_at, email_verified)
        select gen_uuid_v7(), 'bench_m' || lpad(g::text, 6, '0'), 'bench_m' || lpad(g::text, 6, '0') || '@bench.test', ${passwordHash},
               'Learner ' || lpad(g::text, 6, '0'), 'STUDENT', ${ago(100)}, true
          from generate_series(1, ${learners}) g`)
      // 10 % want every notification by e-mail; the others switched e-mail off.
      await step('mooc: e-mail preferences', () => tx`
        insert into notification_channel_preferences (user_id, channel, notification_type, enabled, updated_at)
        select u.id, 'email', t.type, right(u.username, 1) = '0', ${ago(90)}
          from users u cross join unnest(${TYPE_NAMES as string[]}::text[]) as t (type)
         where u.username like 'bench\\_m%'`)
      await step('mooc: course_members', () => tx`
        insert into course_members (course_id, user_id, joined_at)
        select ${mooc.id}, u.id, ${ago(60)}::timestamptz + row_number() over (order by u.username) * interval '10 milliseconds'
          from users u where u.username like 'bench\\_m%' or u.username = ${students[0]!.username}`)
      await structure(tx, anchor, mooc.id, step)
      await step('mooc: learning_submissions (unit 1, 20 %)', () => tx`
        insert into learning_submissions (id, task_id, course_id, student_id, content, answers, auto_score, score, status, late, submitted_at, graded_at)
        select gen_uuid_v7(), t.id, t.course_id, m.user_id,
               case when t.task_type = 'MEDIA' then '<p>My answer.</p>' end,
               case when t.task_type = 'QUIZ' then jsonb_build_array(
                 jsonb_build_object('questionId', t.questions->0->>'id', 'selectedOptions', '[1]'::jsonb, 'text', null),
                 jsonb_build_object('questionId', t.questions->1->>'id', 'selectedOptions', '[0, 2]'::jsonb, 'text', null)) end,
               case when t.task_type = 'QUIZ' then 100 end, case when t.task_type = 'QUIZ' then 100 end,
               case when t.task_type = 'QUIZ' then 'GRADED' else 'SUBMITTED' end, false,
               ${ago(30)}::timestamptz + random() * interval '20 days',
               case when t.task_type = 'QUIZ' then ${ago(30)}::timestamptz end
          from learning_tasks t
          join knowledge_points kp on kp.id = t.point_id
          join learning_units lu on lu.id = kp.unit_id and lu.sort_order = 1
          join course_members m on m.course_id = t.course_id
         where t.course_id = ${mooc.id} and t.task_kind = 'LEARNING' and random() < 0.2`)
    }

    await tx`insert into bench_seed (version, anchor, seeded_at, seconds, shape)
             values (${SEED_VERSION}, ${anchor}, ${new Date()}, ${(performance.now() - started) / 1000}, ${SHAPE.name})`
  })
  await step('vacuum analyze', () => sql.unsafe('vacuum analyze'))
  const seconds = (performance.now() - started) / 1000
  await sql`update bench_seed set seconds = ${seconds} where anchor = ${anchor}`
  log(`seeded in ${seconds.toFixed(1)} s`)
  return { anchor, seededAt: new Date(), seconds, reused: false }
}

type Step = (name: string, f: () => Promise<unknown>) => Promise<void>

/** The learning structure of every course (`only` null) or of one: units × points × tasks. */
async function structure(tx: TxSql, anchor: Date, only: string | null, step: Step) {
  await step('learning_units', () => tx`
    insert into learning_units (id, course_id, title, description, sort_order, created_at)
    select gen_uuid_v7(), c.id, 'Unit ' || u, 'What unit ' || u || ' covers.', u, c.created_at + interval '1 day'
      from courses c cross join generate_series(1, ${SHAPE.unitsPerCourse}) u
     where ${only === null} or c.id = ${only}`)
  await step('knowledge_points', () => tx`
    insert into knowledge_points (id, unit_id, course_id, title, description, sort_order, created_at)
    select gen_uuid_v7(), lu.id, lu.course_id, 'Point ' || lu.sort_order || '.' || p, '', p, lu.created_at
      from learning_units lu cross join generate_series(1, ${SHAPE.pointsPerUnit}) p
     where ${only === null} or lu.course_id = ${only}`)
  // The last task of each point is HOMEWORK; homework h (0..19 in course order) is due at
  // anchor + (h - 6) × 5 days + 10 h, open for 7 days: 6 past, 2 open, 12 not yet open.
  // Quizzes (tasks 2 and 4, and every other homework) have two choice questions.
  await step('learning_tasks', () => tx`
    insert into learning_tasks (id, point_id, course_id, title, task_kind, task_type, material_type, content,
                                questions, start_at, due_at, sort_order, created_at)
    select gen_uuid_v7(), x.point_id, x.course_id, x.title, x.kind, x.type,
           case when x.type = 'MEDIA' then 'TEXT' end,
           '<p>Read the notes for ' || x.title || ' and answer in your own words.</p>',
           case when x.type = 'QUIZ' then jsonb_build_array(
             jsonb_build_object('id', gen_uuid_v7()::text, 'type', 'SINGLE_CHOICE', 'stem', 'Which one is right?',
                                'options', jsonb_build_array('A', 'B', 'C', 'D'), 'correctOptions', jsonb_build_array(1), 'points', 1),
             jsonb_build_object('id', gen_uuid_v7()::text, 'type', 'MULTIPLE_CHOICE', 'stem', 'Which ones are right?',
                                'options', jsonb_build_array('A', 'B', 'C', 'D'), 'correctOptions', jsonb_build_array(0, 2), 'points', 2))
           else '[]'::jsonb end,
           x.due - interval '7 days', x.due, x.t, x.created_at
      from (select kp.id as point_id, kp.course_id, kp.created_at, t,
                   'Task ' || lu.sort_order || '.' || kp.sort_order || '.' || t as title,
                   case when t = ${SHAPE.tasksPerPoint} then 'HOMEWORK' else 'LEARNING' end as kind,
                   case when t = ${SHAPE.tasksPerPoint} then (case when kp.sort_order % 2 = 0 then 'QUIZ' else 'MEDIA' end)
                        when t in (2, 4) then 'QUIZ' else 'MEDIA' end as type,
                   case when t = ${SHAPE.tasksPerPoint}
                        then ${anchor}::timestamptz + ((lu.sort_order - 1) * ${SHAPE.pointsPerUnit} + kp.sort_order - 1 - 6) * interval '5 days' + interval '10 hours'
                   end as due
              from knowledge_points kp
              join learning_units lu on lu.id = kp.unit_id
             cross join generate_series(1, ${SHAPE.tasksPerPoint}) t
             where ${only === null} or kp.course_id = ${only}) x`)
}

/**
 * Removes everything newer than the anchor (what a benchmark run creates: sessions, answer
 * sheets, homework and their events, notifications), so every run starts from the same data.
 * Mid-run, `keepSessions` keeps the benchmark's own logins.
 */
/**
 * The mooc bench's fixtures on a mooc-shaped database (bench/mooc.ts, bench/probe-courses.ts): the
 * course "MOOC", the smallest seminar, and `bench_single`, a student of that seminar only (the
 * reads' comparison), plus `joiners` students `bench_j001`… who are in no course yet (the joins row).
 */
export async function moocFixtures(admin: Sql, anchor: Date, joiners = 0) {
  const [mooc] = await admin<{ id: string; invite_code: string; size: number }[]>`
    select c.id, c.invite_code, (select count(*) from course_members m where m.course_id = c.id)::int as size
      from courses c where c.title = 'MOOC'`
  if (!mooc) throw new Error('no MOOC course: seed with BENCH_SHAPE=mooc')
  const [seminar] = await admin<{ id: string; size: number }[]>`
    select c.id, count(*)::int as size from courses c join course_members m on m.course_id = c.id
     where c.title <> 'MOOC' group by c.id order by count(*), c.id limit 1`
  const hash = (await admin<{ h: string }[]>`select password_hash as h from users where username = 'bench_tmooc'`)[0]!.h
  await admin`
    insert into users (id, username, email, password_hash, display_name, role, created_at, email_verified)
    select gen_uuid_v7(), u, u || '@bench.test', ${hash}, u, 'STUDENT', ${new Date(anchor.getTime() - 86_400_000)}, true
      from (select 'bench_single' as u union all select 'bench_j' || lpad(g::text, 3, '0') from generate_series(1, ${joiners}) g) x
    on conflict do nothing`
  await admin`
    insert into course_members (course_id, user_id, joined_at)
    select ${seminar!.id}, id, ${new Date(anchor.getTime() - 86_400_000)} from users where username = 'bench_single'
    on conflict do nothing`
  return { mooc, seminar: seminar! }
}

export async function restore(sql: Sql, anchor: Date, opts: { keepSessions?: boolean } = {}) {
  await sql.begin(async (tx) => {
    await tx`delete from notifications where delivered_at > ${anchor}`
    await tx`delete from learning_tasks where created_at > ${anchor}`
    await tx`delete from learning_submissions where submitted_at > ${anchor}`
    await tx`delete from homework_reminder_events where created_at > ${anchor}`
    if (!opts.keepSessions) await tx`delete from sessions where created_at > ${anchor}`
  })
}

/**
 * Dispatch benchmark set-up (bench/run.ts, bench/probe-dispatch.ts): one homework per course (first point), opened 2 days ago and due an hour ago; events for every student (first `count`); a quarter submitted early.
 * Returns how many events are due. Everything is after the anchor, so restore() removes it.
 */
export async function seedDueEvents(admin: Sql, clockNow: () => Date, count: number) {
  const now = clockNow()
  await admin.begin(async (tx) => {
    const tasks = await tx<{ id: string }[]>`
      insert into learning_tasks (id, point_id, course_id, title, task_kind, task_type, material_type, content,
                                  start_at, due_at, sort_order, created_at)
      select gen_uuid_v7(), kp.id, kp.course_id, 'Dispatch benchmark homework', 'HOMEWORK', 'MEDIA', 'TEXT', '<p>Due already.</p>',
             ${now}::timestamptz - interval '2 days', ${now}::timestamptz - interval '1 hour', 100, ${now}
        from knowledge_points kp join learning_units lu on lu.id = kp.unit_id
       where lu.sort_order = 1 and kp.sort_order = 1
      returning id`
    const ids = tasks.map((t) => t.id)
    await tx`
      insert into learning_submissions (id, task_id, course_id, student_id, content, status, late, submitted_at)
      select gen_uuid_v7(), t.id, t.course_id, m.user_id, '<p>Done early.</p>', 'SUBMITTED', false, ${now}::timestamptz - interval '30 hours'
        from learning_tasks t join course_members m on m.course_id = t.course_id
       where t.id = any(${ids}::uuid[]) and random() < 0.25`
    await tx`
      insert into homework_reminder_events (id, task_id, target_user_id, trigger_type, scheduled_at, created_at)
      select gen_uuid_v7(), x.task_id, x.user_id, x.trigger_type, x.scheduled_at, ${now}
        from (select t.id as task_id, m.user_id, tr.trigger_type, tr.scheduled_at
                from learning_tasks t
                join course_members m on m.course_id = t.course_id
               cross join lateral (values ('START', t.start_at), ('BEFORE_DUE_24H', t.due_at - interval '24 hours'), ('DUE', t.due_at))
                     as tr (trigger_type, scheduled_at)
               where t.id = any(${ids}::uuid[])
               order by t.id, m.user_id, tr.trigger_type
               limit ${count}) x`
  })
  await admin`analyze homework_reminder_events`
  const [due] = await admin<{ n: number }[]>`
    select count(*)::int as n from homework_reminder_events where scheduled_at <= ${clockNow()} and sent_at is null and not canceled`
  return due!.n
}

/** Row counts of the tables the benchmark reads, for the report. */
export async function datasetSizes(sql: Sql) {
  const [row] = await sql<Record<string, number>[]>`
    select (select count(*) from users where role = 'TEACHER')::int as teachers,
           (select count(*) from users where role = 'STUDENT')::int as students,
           (select count(*) from courses)::int as courses,
           (select count(*) from course_members)::int as memberships,
           (select min(n) from (select count(*) n from course_members group by course_id) x)::int as min_course_size,
           (select max(n) from (select count(*) n from course_members group by course_id) x)::int as max_course_size,
           (select count(*) from learning_units)::int as units,
           (select count(*) from knowledge_points)::int as points,
           (select count(*) from learning_tasks)::int as tasks,
           (select count(*) from learning_tasks where task_kind = 'HOMEWORK')::int as homework_tasks,
           (select count(*) from learning_submissions)::int as learning_submissions,
           (select count(*) from experiments)::int as experiments,
           (select count(*) from experiment_submissions)::int as experiment_submissions,
           (select count(*) from homework_reminder_events)::int as reminder_events,
           (select count(*) from homework_reminder_events where sent_at is null and not canceled)::int as pending_events,
           (select count(*) from notifications)::int as notifications,
           (select count(*) from notifications where read_at is null)::int as unread_notifications,
           (select count(*) from announcements)::int as announcements,
           (select count(*) from sessions)::int as sessions`
  return row!
}

if (import.meta.main) {
  const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/cls_bench'
  const sql = postgres(url, { onnotice: () => {}, max: 2 })
  try {
    const info = await ensureSeeded(sql, { force: process.argv.includes('--force') || process.env.BENCH_RESEED === '1', log: console.log })
    console.log(info)
    console.table(await datasetSizes(sql))
  } finally {
    await sql.end({ timeout: 5 })
  }
}
