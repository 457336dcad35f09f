/**
 * The charts' endpoints at 100,000 students (issue 54): `bun run bench/analytics.ts` on a
 * PostgreSQL server (a fresh database cls_probe_charts_<time>, dropped afterwards), or
 * `PROBE_DB=embedded bun run bench/analytics.ts` on the embedded database (PGlite, in a temporary
 * directory). Fully migrated, one course of PROBE_STUDENTS (100,000) students with a homework
 * (90 % handed in over a week, 80 % graded, a second attempt by one in ten), a quiz of two choice
 * questions and a short answer (85 % handed in) and the per-student totals the triggers keep.
 * Per chart, after a warm-up:
 * - computed: the aggregate over the sheets in a snapshot (what every request ran before
 *   sql/060), PROBE_COLD_RUNS (3) times;
 * - cached: the service call while the gradebook version holds (a hit), PROBE_RUNS (10) times;
 * - after a write: one sheet rewritten (its grade_totals row refreshed, the version raised), then
 *   the service call (a miss: computed and kept), PROBE_COLD_RUNS times.
 * Prints min / median / max in ms; PROBE_PLANS=1 also the plan of each statement (EXPLAIN
 * ANALYZE, BUFFERS). Target: each chart ≤ 500 ms at 100,000 students.
 */
import postgres from 'postgres'
import { connectEmbedded } from '../src/db/connect.ts'
import { migrate } from '../src/db/migrate.ts'
import type { Sql, TxSql } from '../src/db/connect.ts'
import * as charts from '../src/modules/analytics/service.ts'

const N = Number(process.env.PROBE_STUDENTS ?? 100_000)
const RUNS = Number(process.env.PROBE_RUNS ?? 10)
const COLD_RUNS = Number(process.env.PROBE_COLD_RUNS ?? 3)
const embedded = process.env.PROBE_DB === 'embedded'
const admin = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const name = `cls_probe_charts_${Date.now().toString(36)}`
let sql: Sql
let closeEmbedded: (() => Promise<void>) | null = null
if (embedded) {
  const db = await connectEmbedded(undefined)
  sql = db.sql
  closeEmbedded = () => db.close()
} else {
  const a = postgres(admin, { max: 1, onnotice: () => {} })
  await a.unsafe(`create database ${name}`)
  await a.end()
  const u = new URL(admin)
  u.pathname = `/${name}`
  sql = postgres(u.toString(), { max: 4, onnotice: () => {} }) as unknown as Sql
}
const id = () => Bun.randomUUIDv7()
class Done extends Error {}
try {
  await migrate(sql)
  const teacher = id()
  const course = id()
  const unit = id()
  const point = id()
  const hw = id()
  const quiz = id()
  const t0 = new Date('2026-11-01T08:00:00Z')
  const due = new Date(t0.getTime() + 5 * 86400_000)
  const q1 = id(), q2 = id(), q3 = id()
  const questions = [
    { id: q1, type: 'SINGLE_CHOICE', stem: 'a', options: ['x', 'y'], correctOptions: [1], points: 1 },
    { id: q2, type: 'MULTIPLE_CHOICE', stem: 'b', options: ['x', 'y', 'z'], correctOptions: [0, 2], points: 1 },
    { id: q3, type: 'SHORT_ANSWER', stem: 'c', options: [], correctOptions: [], points: 4 },
  ]
  const started = performance.now()
  await sql`insert into users (id, username, email, password_hash, display_name, role) values (${teacher}, 'teacher', 'teacher@example.test', 'x', 'T', 'TEACHER')`
  await sql`
    insert into users (id, username, email, password_hash, display_name, role)
    select gen_random_uuid(), 's' || i, 's' || i || '@example.test', 'x', 'S' || i, 'STUDENT' from generate_series(1, ${N}) i`
  await sql`insert into courses (id, teacher_id, title, description, invite_code) values (${course}, ${teacher}, 'MOOC', 'x', 'MOOC1')`
  await sql`insert into course_members (course_id, user_id, joined_at) select ${course}, id, ${t0} from users where role = 'STUDENT'`
  await sql`insert into learning_units (id, course_id, title, sort_order) values (${unit}, ${course}, 'U', 1)`
  await sql`insert into knowledge_points (id, unit_id, course_id, title, sort_order) values (${point}, ${unit}, ${course}, 'P', 1)`
  await sql`
    insert into learning_tasks (id, point_id, course_id, title, task_kind, task_type, material_type, content, start_at, due_at,
                                notify_on_start, notify_before_due_24h, notify_on_due, sort_order, questions)
    values (${hw}, ${point}, ${course}, 'Essay 3', 'HOMEWORK', 'MEDIA', 'TEXT', '<p>x</p>', ${t0}, ${due}, false, false, false, 1, '[]'),
           (${quiz}, ${point}, ${course}, 'Quiz', 'HOMEWORK', 'QUIZ', null, '', ${t0}, ${due}, false, false, false, 2, ${sql.json(questions as any)})`
  // Homework: 90 % hand in over 7 days (late after day 5), 80 % of all graded; one in ten twice.
  await sql`
    insert into learning_submissions (id, task_id, course_id, student_id, content, status, score, late, submitted_at, graded_at)
    select gen_random_uuid(), ${hw}, ${course}, m.user_id, '<p>a</p>',
           case when r.g then 'GRADED' else 'SUBMITTED' end, case when r.g then round((random() * 100)::numeric, 2) end,
           r.at > ${due}, r.at, case when r.g then r.at end
      from course_members m
      cross join lateral (select random() < 0.89 as g, ${t0}::timestamptz + random() * interval '7 days' as at where m.user_id is not null) r
     where m.course_id = ${course} and random() < 0.9`
  await sql`
    insert into learning_submissions (id, task_id, course_id, student_id, content, status, late, submitted_at)
    select gen_random_uuid(), task_id, course_id, student_id, '<p>b</p>', 'SUBMITTED', true, submitted_at + interval '1 hour'
      from learning_submissions where task_id = ${hw} and random() < 0.1`
  // Quiz: 85 % hand in; answers right about two times in three; the short answer scored for 70 %.
  await sql`
    insert into learning_submissions (id, task_id, course_id, student_id, answers, auto_score, question_scores, status, score, late, submitted_at, graded_at)
    select gen_random_uuid(), ${quiz}, ${course}, m.user_id,
           jsonb_build_array(jsonb_build_object('questionId', ${q1}::text, 'selectedOptions', case when random() < 0.67 then '[1]'::jsonb else '[0]'::jsonb end, 'text', null),
                             jsonb_build_object('questionId', ${q2}::text, 'selectedOptions', case when random() < 0.5 then '[0, 2]'::jsonb else '[0]'::jsonb end, 'text', null),
                             jsonb_build_object('questionId', ${q3}::text, 'selectedOptions', '[]'::jsonb, 'text', 'because')),
           50, case when s.scored then jsonb_build_array(jsonb_build_object('questionId', ${q3}::text, 'score', s.pts)) end,
           case when s.scored then 'GRADED' else 'SUBMITTED' end, case when s.scored then 50 + s.pts * 10 end, false,
           ${t0}::timestamptz + random() * interval '4 days', case when s.scored then ${due}::timestamptz end
      from course_members m
      cross join lateral (select random() < 0.7 as scored, floor(random() * 5)::int as pts where m.user_id is not null) s
     where m.course_id = ${course} and random() < 0.85`
  await sql`vacuum analyze`
  console.log(`seeded ${N} students in ${Math.round((performance.now() - started) / 1000)} s`)

  const now = new Date(t0.getTime() + 10 * 86400_000)
  const snapshot = <T>(f: (tx: TxSql) => Promise<T>) => sql.begin('isolation level repeatable read read only', f) as Promise<T>
  const cases: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
    ['score distribution (homework)', () => snapshot((tx) => charts.computeScoreDistribution(tx, course, hw)), () => charts.scoreDistribution(sql, course, hw)],
    ['hand-in timeline (homework)', () => snapshot((tx) => charts.computeHandIns(tx, course, hw)), () => charts.handInTimeline(sql, course, hw, now)],
    ['per-question share correct (quiz)', () => snapshot((tx) => charts.computeQuestionCorrectness(tx, course, quiz)), () => charts.questionCorrectness(sql, course, quiz)],
    ["course totals' distribution", () => snapshot((tx) => charts.computeTotalsDistribution(tx, course)), () => charts.totalsDistribution(sql, course)],
  ]
  const [one] = await sql<{ id: string }[]>`select id from learning_submissions where task_id = ${hw} limit 1`
  const write = () => sql`update learning_submissions set score = score where id = ${one!.id}`
  const time = async (runs: number, f: () => Promise<unknown>, before?: () => Promise<unknown>) => {
    const times: number[] = []
    for (let i = 0; i < runs; i++) {
      await before?.()
      const s = performance.now()
      await f()
      times.push(performance.now() - s)
    }
    times.sort((x, y) => x - y)
    const ms = (x: number) => (x < 10 ? x.toFixed(1) : String(Math.round(x)))
    return `${ms(times[0]!)} / ${ms(times[Math.floor(times.length / 2)]!)} / ${ms(times.at(-1)!)}`
  }
  console.log(`${embedded ? 'embedded' : 'PostgreSQL'}: min / median / max ms`)
  console.log(`| chart (${N.toLocaleString('en')} students) | computed (before) | cached (hit) | after a write (miss) |`)
  console.log('|---|---|---|---|')
  for (const [what, computed, served] of cases) {
    await computed()
    const before = await time(COLD_RUNS, computed)
    await served()
    const hit = await time(RUNS, served)
    const miss = await time(COLD_RUNS, served, write)
    console.log(`| ${what} | ${before} | ${hit} | ${miss} |`)
  }
  if (process.env.PROBE_PLANS !== '1') throw new Done()
  console.log('\nplans:')
  const explain = async (label: string, text: string, params: unknown[]) => {
    const rows = await sql.unsafe(`explain (analyze, buffers, costs off) ${text}`, params as any[])
    console.log(`\n-- ${label}\n${rows.map((r: any) => r['QUERY PLAN']).join('\n')}`)
  }
  await explain(
    'score buckets',
    `select case when n.score is null then null else least(floor(n.score / 10), 9)::int end as bucket, count(*)::int
       from (select distinct on (s.student_id) s.student_id, s.score from learning_submissions s where s.task_id = $2
              order by s.student_id, s.submitted_at desc, s.id desc) n
      where exists (select 1 from course_members m where m.course_id = $1 and m.user_id = n.student_id) group by 1`,
    [course, hw],
  )
  await explain(
    'hand-in days',
    `select to_char(f.submitted_at at time zone 'UTC', 'YYYY-MM-DD'), count(*)
       from (select distinct on (s.student_id) s.student_id, s.submitted_at from learning_submissions s where s.task_id = $2
              order by s.student_id desc, s.submitted_at, s.id) f
      where exists (select 1 from course_members m where m.course_id = $1 and m.user_id = f.student_id) group by 1 order by 1`,
    [course, hw],
  )
  await explain(
    'totals buckets',
    `select least(floor((g.task_score_sum + g.lab_score_sum) / (g.task_graded + g.lab_graded) / 10), 9)::int, count(*)
       from grade_totals g where g.course_id = $1 and g.task_graded + g.lab_graded > 0
        and exists (select 1 from course_members m where m.course_id = $1 and m.user_id = g.student_id) group by 1`,
    [course],
  )
} catch (e) {
  if (!(e instanceof Done)) throw e
} finally {
  if (closeEmbedded) await closeEmbedded()
  else {
    await sql.end()
    const b = postgres(admin, { max: 1, onnotice: () => {} })
    await b.unsafe(`drop database if exists ${name} with (force)`)
    await b.end()
  }
}
process.exit(0)
