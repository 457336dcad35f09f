// The notification pipeline at MOOC scale (issues 26, 28, 30.5), on a database of its own
// (DATABASE_URL, migrated and seeded here): a course of 100,001 students, 10 % of them with a
// verified address (so the e-mail channel, on, queues an outbox row for each of their reminders).
//   1. dispatch of 100,001 START events into notifications (target ≥ 40,000 events/s), outbox included;
//   2. an announcement to the whole course through notify (target ≤ 1 s), with the process's RSS.
// PROBE_STUDENTS (100001), PROBE_REPEAT (2). Not part of bun test.
import postgres from 'postgres'
import { connectExternal, type Sql } from '../src/db/connect.ts'
import { migrate } from '../src/db/migrate.ts'
import { emailChannel } from '../src/modules/email/channel.ts'
import { publish } from '../src/modules/announcements/service.ts'
import { dispatch } from '../src/modules/reminders/dispatch.ts'

const url = process.env.DATABASE_URL!
const STUDENTS = Number(process.env.PROBE_STUDENTS ?? 100_001)
const REPEAT = Number(process.env.PROBE_REPEAT ?? 2)
const admin = postgres(url, { onnotice: () => {}, max: 2 }) as unknown as Sql
const db = await connectExternal(url, 10)
await migrate(db.sql)
const channels = [emailChannel]

let [course] = await admin<{ id: string; teacher_id: string; point_id: string }[]>`
  select c.id, c.teacher_id, kp.id as point_id from courses c join knowledge_points kp on kp.course_id = c.id where c.title = 'Probe MOOC' limit 1`
if (!course) {
  console.log(`seeding ${STUDENTS} students…`)
  await admin.begin(async (tx) => {
    const [t] = await tx<{ id: string }[]>`
      insert into users (id, username, email, password_hash, display_name, role)
      values (gen_uuid_v7(), 'probe-teacher', 'probe-teacher@probe.test', 'x', 'Probe teacher', 'TEACHER') returning id`
    await tx`
      insert into users (id, username, email, password_hash, display_name, role, email_verified)
      select gen_uuid_v7(), 'probe-s' || i, 'probe-s' || i || '@probe.test', 'x', 'Student ' || i, 'STUDENT', i % 10 = 0
        from generate_series(1, ${STUDENTS}) as i`
    const [c] = await tx<{ id: string }[]>`
      insert into courses (id, teacher_id, title, description, invite_code)
      values (gen_uuid_v7(), ${t!.id}, 'Probe MOOC', '', 'PRBMOOC1') returning id`
    await tx`insert into course_members (course_id, user_id, joined_at)
             select ${c!.id}, id, now() from users where username like 'probe-s%'`
    const [u] = await tx<{ id: string }[]>`
      insert into learning_units (id, course_id, title, sort_order) values (gen_uuid_v7(), ${c!.id}, 'Unit', 1) returning id`
    await tx`insert into knowledge_points (id, unit_id, course_id, title, sort_order) values (gen_uuid_v7(), ${u!.id}, ${c!.id}, 'Point', 1)`
  })
  await admin`vacuum analyze`
  ;[course] = await admin<{ id: string; teacher_id: string; point_id: string }[]>`
    select c.id, c.teacher_id, kp.id as point_id from courses c join knowledge_points kp on kp.course_id = c.id where c.title = 'Probe MOOC' limit 1`
}
const C = course!

const rss = () => Math.round(process.memoryUsage().rss / 1048576)
for (let r = 0; r < REPEAT; r++) {
  await admin`delete from notifications where user_id in (select user_id from course_members where course_id = ${C.id})`
  await admin`delete from learning_tasks where course_id = ${C.id}`
  await admin`delete from announcements where course_id = ${C.id}`
  const now = new Date()
  const [task] = await admin<{ id: string }[]>`
    insert into learning_tasks (id, point_id, course_id, title, task_kind, task_type, material_type, content, start_at, due_at, sort_order, created_at)
    values (gen_uuid_v7(), ${C.point_id}, ${C.id}, 'Probe homework', 'HOMEWORK', 'MEDIA', 'TEXT', '<p>x</p>',
            ${new Date(now.getTime() - 60_000)}, ${new Date(now.getTime() + 7 * 86_400_000)}, 1, ${now}) returning id`
  await admin`
    insert into homework_reminder_events (id, task_id, target_user_id, trigger_type, scheduled_at, created_at)
    select gen_uuid_v7(), ${task!.id}, m.user_id, 'START', ${new Date(now.getTime() - 60_000)}, ${now}
      from course_members m where m.course_id = ${C.id}`
  await admin`analyze homework_reminder_events`
  await admin`checkpoint`
  const t0 = performance.now()
  const res = await dispatch(db.sql, now, { channels, maxConnections: db.capability.maxConnections })
  const s = (performance.now() - t0) / 1000
  const [o] = await admin<{ n: number; outbox: number }[]>`
    select (select count(*)::int from notifications n join course_members m on m.user_id = n.user_id and m.course_id = ${C.id} where n.notification_type = 'HOMEWORK_REMINDER') as n,
           (select count(*)::int from email_outbox e join notifications n on n.id = e.notification_id join course_members m on m.user_id = n.user_id and m.course_id = ${C.id} where n.notification_type = 'HOMEWORK_REMINDER') as outbox`
  console.log(`dispatch: ${res.sent} sent + ${res.canceled} canceled in ${s.toFixed(2)} s = ${Math.round((res.sent + res.canceled) / s)} events/s; notifications ${o!.n}, outbox rows ${o!.outbox}`)

  Bun.gc(true)
  const before = rss()
  const a0 = performance.now()
  await publish(db.sql, C.id, { id: C.teacher_id } as never, { title: 'Probe announcement', content: '<p>To everyone.</p>' }, new Date(), channels)
  const as = (performance.now() - a0) / 1000
  const peak = rss()
  const [an] = await admin<{ n: number }[]>`select count(*)::int as n from notifications where params->>'announcementTitle' = 'Probe announcement' and user_id in (select user_id from course_members where course_id = ${C.id})`
  console.log(`announcement: ${an!.n} notifications in ${as.toFixed(2)} s; RSS ${before} → ${peak} MB (+${peak - before})`)
}
await db.sql.end()
await admin.end()
