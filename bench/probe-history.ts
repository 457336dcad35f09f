/**
 * The inbox at 10 million notifications, and the retention job over them (issue 26: "a
 * notifications retention job … with the inbox still history-independent at 10 million rows"):
 * `bun run bench/probe-history.ts` (the mooc bench runs it as its `history` row).
 *
 * Two databases of its own, seeded once and kept (PG_ADMIN_URL's server): `cls_probe_history_big`
 * with HISTORY_USERS (100,000) students of HISTORY_PER_USER (100) notifications each, 10,000,000
 * rows over the year before a fixed anchor (the newest ten and every tenth older one unread,
 * the rest read; reminders, announcements and grades, with the params the service writes), and
 * `cls_probe_history_small`: the same students, 100 of them with their 100 notifications (10,000
 * rows). Both are written slot by slot, as dispatches write them, so a student's rows lie one per
 * heap page in both; the probe student (`hist_probe`) has the same inbox in both.
 *
 * 1. Inbox: the service (bench/serve.ts) against each database, GET /notifications and
 *    GET /notifications?unreadOnly=true for the probe student, mirrored twice (big, small, small,
 *    big, big, small, small, big); history-independent when the big database's req/s is ≥ 0.9 of
 *    the small one's. Beside it, the buffers the page's statement reads in each (pageBuffers).
 * 2. Retention: two callers at once (two instances' jobs) run `purgeReadNotifications` with the
 *    anchor as `now` and 345 days: the read rows of the five oldest of each student's slots,
 *    500,000 rows. Checked: each deleted once (the sum is the count before), no unread row gone,
 *    every counter of 1,000 sampled students equal to a count of their rows. The inbox's req/s
 *    while the purge runs is printed beside it.
 * The deleted slice is written again at the start of the next run (with the triggers, so the
 * counters follow), so every run starts from the same 10,000,000 rows.
 * Prints one `| history … | PASS/FAIL |` line per check (bench/mooc.ts reads them).
 */
import { loadavg } from 'node:os'
import postgres from 'postgres'
import type { Sql, TxSql } from '../src/db/connect.ts'
import { migrate } from '../src/db/migrate.ts'
import { uuidV7 } from '../src/db/uuid-v7.ts'
import { listNotifications } from '../src/modules/notifications/queries.ts'
import { purgeReadNotifications } from '../src/modules/notifications/retention.ts'
import { mean, mirrored, readRate } from './load.ts'
import { BENCH_PASSWORD, benchLogin } from './seed.ts'
import { startServer, type Server } from './wrk.ts'

const USERS = Number(process.env.HISTORY_USERS ?? 100_000)
const PER_USER = Number(process.env.HISTORY_PER_USER ?? 100)
const READ_SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
/** Slot j of a student is delivered j × 3.65 days (and u seconds) before the anchor. */
const SLOT_DAYS = 3.65
const RETENTION_DAYS = 345
/** The slots the retention removes: delivered more than 345 days before the anchor, and read. */
const OLD_SLOT = Math.ceil(RETENTION_DAYS / SLOT_DAYS)
const ANCHOR = new Date('2026-06-01T00:00:00.000Z')
/** Bumped when the rows' shape changes: a database seeded by another version is seeded again. */
const SEED_VERSION = 3
/** Students with notifications in the small database: the probe student's rows lie one per heap page there too. */
const SMALL_NOTIFIED = 100
const admin = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const t0 = performance.now()
const log = (m: string) => console.error(`[history ${((performance.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${m}`)

const urlOf = (name: string) => {
  const u = new URL(admin)
  u.pathname = `/${name}`
  return u.toString()
}

/** Slot j unread: the newest ten and every tenth older one (19 of 100). */
const unread = (j: string) => `(${j} < 10 or ${j} % 10 = 3)`

/** Student i's username (i = 1 is the probe student). */
const nameOf = (i: string) => `(case when ${i} = 1 then 'hist_probe' else 'hist_' || lpad(${i}::text, 6, '0') end)`

/**
 * The notifications of students `from`..`to` (by index), slots `slots`: what the service writes
 * (params, action path, a uuidv7 of the delivery time: the service's expression), naming no course
 * of this database.
 * `missing`: only the (student, slot) rows not there (the next run's top-up).
 */
function rowsOf(sql: Sql | TxSql, from: number, to: number, slots: string, missing = false) {
  return sql`
    insert into notifications (id, user_id, notification_type, title, content, action_path, delivered_at, read_at, params)
    select ${uuidV7(sql, sql`d.at`)}, u.id, k.kind, '', '', '/messages', d.at,
           case when ${sql.unsafe(unread('s.j'))} then null else d.at + interval '1 hour' end,
           case k.kind
             when 'HOMEWORK_REMINDER' then jsonb_build_object('kind', k.kind, 'courseId', k.course, 'courseTitle', 'Open course ' || (s.j % 7),
                 'taskId', k.ref, 'taskTitle', 'Homework ' || s.j, 'startAt', '2026-01-01T00:00:00.000Z', 'dueAt', '2026-01-08T00:00:00.000Z',
                 'trigger', (array['START', 'BEFORE_DUE_24H', 'DUE'])[1 + s.j % 3])
             when 'ANNOUNCEMENT' then jsonb_build_object('kind', k.kind, 'courseId', k.course, 'courseTitle', 'Open course ' || (s.j % 7),
                 'announcementId', k.ref, 'announcementTitle', 'Week ' || s.j || ' starts', 'excerpt', 'Read chapter ' || s.j || ' before the live session.')
             else jsonb_build_object('kind', k.kind, 'subject', 'TASK', 'courseId', k.course, 'courseTitle', 'Open course ' || (s.j % 7),
                 'title', 'Homework ' || s.j, 'score', 80 + s.j % 20)
           end
      from generate_series(${from}::int, ${to}::int) g (i)
      join users u on u.username = ${sql.unsafe(nameOf('g.i'))}
      cross join ${sql.unsafe(slots)} as s (j)
      cross join lateral (select ${ANCHOR}::timestamptz - s.j * (${SLOT_DAYS}::float8 * interval '1 day') - g.i * interval '1 second' as at) d
      cross join lateral (select case when s.j % 10 < 6 then 'HOMEWORK_REMINDER' when s.j % 10 < 9 then 'ANNOUNCEMENT' else 'SUBMISSION_GRADED' end as kind,
                                 ('01890000-0000-7000-8000-' || lpad((s.j % 7)::text, 12, '0'))::uuid as course,
                                 ('01890000-0000-7000-9000-' || lpad(s.j::text, 12, '0'))::uuid as ref) k
     ${missing ? sql`where not exists (select 1 from notifications n where n.user_id = u.id and n.delivered_at = d.at)` : sql``}
     -- Slot by slot, as a dispatch writes them: one student's rows lie one per heap page.
     order by s.j, g.i`
}

/**
 * The shared buffers (hit + read) one page of the probe student's inbox costs: the service's own
 * statement (listNotifications, a first page of 50), explained. Unlike req/s on this shared box
 * (±10 % a round), it does not swing: the same index range scan reads the same pages whatever
 * the table's size, give or take the index's extra level at 10 million rows.
 */
async function pageBuffers(sql: Sql, userId: string, unreadOnly: boolean): Promise<number> {
  const [row] = await sql<{ 'QUERY PLAN': { Plan: Record<string, number> }[] }[]>`
    explain (analyze, buffers, format json) ${listNotifications(sql, userId, unreadOnly, 50, 0)}`
  const plan = row!['QUERY PLAN'][0]!.Plan
  return plan['Shared Hit Blocks']! + plan['Shared Read Blocks']!
}

/** The database `name` with its students, seeded once (a marker table says how). */
async function ensure(name: string, notified: number): Promise<Sql> {
  const a = postgres(admin, { max: 1, onnotice: () => {} })
  const [exists] = await a`select 1 from pg_database where datname = ${name}`
  if (!exists) await a.unsafe(`create database ${name}`)
  await a.end()
  const sql = postgres(urlOf(name), { max: 4, onnotice: () => {} }) as unknown as Sql
  const shape = `${USERS} students, ${notified} x ${PER_USER} notifications, v${SEED_VERSION}`
  const [marker] = await sql<{ shape: string }[]>`select shape from probe_history`.catch(() => [])
  if (marker?.shape === shape) return sql
  const started = performance.now()
  log(`seeding ${name}: ${shape}`)
  await sql.unsafe('drop table if exists probe_history')
  await migrate(sql)
  await sql`truncate notifications, notification_counters, users cascade`
  const hash = await Bun.password.hash(BENCH_PASSWORD)
  await sql`
    insert into users (id, username, email, password_hash, display_name, role, email_verified)
    select gen_uuid_v7(), ${sql.unsafe(nameOf('i'))},
           'hist' || i || '@bench.test', case when i = 1 then ${hash} else 'x' end, 'Learner ' || i, 'STUDENT', true
      from generate_series(1, ${USERS}) i`
  await sql.begin(async (tx) => {
    // The bulk write without its triggers (the counters are computed once at the end; every
    // reference is a student of this table) and with the secondary indexes built afterwards.
    await tx`set local session_replication_role = replica`
    const indexes = await tx<{ name: string; def: string }[]>`
      select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as def
        from pg_index i
       where i.indrelid = 'notifications'::regclass and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`
    for (const i of indexes) await tx.unsafe(`drop index ${i.name}`)
    const step = 10_000
    for (let from = 1; from <= notified; from += step) {
      const to = Math.min(from + step - 1, notified)
      await rowsOf(tx, from, to, `generate_series(0, ${PER_USER - 1})`)
      log(`  ${to.toLocaleString('en-US')} students written`)
    }
    for (const i of indexes) await tx.unsafe(i.def)
    await tx`
      insert into notification_counters (user_id, total, unread, unread_reminders)
      select user_id, count(*), count(*) filter (where read_at is null),
             count(*) filter (where read_at is null and notification_type = 'HOMEWORK_REMINDER')
        from notifications group by user_id`
  })
  await sql.unsafe('vacuum (analyze) users, notifications, notification_counters')
  await sql`create table probe_history as select ${shape}::text as shape, now() as seeded_at`
  log(`seeded ${name} in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  return sql
}

const big = await ensure('cls_probe_history_big', USERS)
const small = await ensure('cls_probe_history_small', SMALL_NOTIFIED)
const expected = USERS * PER_USER
// A previous run's retention: its slice written again, through the triggers (counters follow).
const before = (await big<{ n: number }[]>`select count(*)::int as n from notifications`)[0]!.n
if (before < expected) {
  log(`writing again the ${(expected - before).toLocaleString('en-US')} rows the last run's retention deleted`)
  await rowsOf(big, 1, USERS, `(select j from generate_series(${OLD_SLOT}, ${PER_USER - 1}) j where not ${unread('j')})`, true)
  await big.unsafe('vacuum (analyze) notifications, notification_counters')
}
const total = (await big<{ n: number }[]>`select count(*)::int as n from notifications`)[0]!.n
if (total !== expected) throw new Error(`cls_probe_history_big holds ${total} notifications, not ${expected}`)

const lines: string[] = []
const report = (check: string, target: string, value: string, pass: boolean) => {
  lines.push(`| history: ${check} | ${target} | ${value} | ${pass ? 'PASS' : 'FAIL'} |`)
  log(`${pass ? 'PASS' : 'FAIL'} ${check}: ${value}`)
}

const offset = String(ANCHOR.getTime() - Date.now())
const servers: Server[] = []
try {
  const env = { BENCH_CLOCK_OFFSET_MS: offset, BENCH_POOL: '10' }
  const [bigServer, smallServer] = [await startServer('service', { ...env, DATABASE_URL: urlOf('cls_probe_history_big') }), await startServer('service', { ...env, DATABASE_URL: urlOf('cls_probe_history_small') })]
  servers.push(bigServer!, smallServer!)
  const [bigToken, smallToken] = [await benchLogin(bigServer!.base, 'hist_probe'), await benchLogin(smallServer!.base, 'hist_probe')]
  const rate = async (s: Server, token: string, path: string, seconds = READ_SECONDS) => (await readRate(s.base + path, token, seconds)).rps
  // The same inbox in both: the first page's items (ids differ, the rest not).
  const page = async (s: Server, token: string) => ((await (await fetch(`${s.base}/notifications`, { headers: { authorization: `Bearer ${token}` } })).json()) as any).data
  const [pb, ps] = [await page(bigServer!, bigToken), await page(smallServer!, smallToken)]
  const strip = (d: any) => JSON.stringify({ ...d, items: d.items.map(({ id: _, ...rest }: any) => rest) })
  if (strip(pb) !== strip(ps)) throw new Error('the probe student\'s inbox differs between the two databases')

  const probeId = async (sql: Sql) => (await sql<{ id: string }[]>`select id from users where username = 'hist_probe'`)[0]!.id
  const [bigId, smallId] = [await probeId(big), await probeId(small)]
  for (const [what, path, unreadOnly] of [['GET /notifications', '/notifications', false], ['GET /notifications?unreadOnly=true', '/notifications?unreadOnly=true', true]] as const) {
    const [bs, ss] = await mirrored([() => rate(bigServer!, bigToken, path), () => rate(smallServer!, smallToken, path)], 2)
    const [b, s] = [mean(bs!), mean(ss!)]
    const [bb, sb] = [await pageBuffers(big, bigId, unreadOnly), await pageBuffers(small, smallId, unreadOnly)]
    log(`${what}: ${expected.toLocaleString('en-US')} rows ${bs!.map((x) => x.toFixed(0)).join(', ')}; 10,000 rows ${ss!.map((x) => x.toFixed(0)).join(', ')} req/s`)
    report(`${what} at ${expected.toLocaleString('en-US')} notifications`, '≥ 0.9 × the same inbox in a table of 10,000 rows',
      `${b.toFixed(0)} vs ${s.toFixed(0)} req/s (${(b / s).toFixed(2)}); the page's statement reads ${bb} vs ${sb} buffers`, b >= 0.9 * s)
  }

  // Retention: two instances' jobs at once over the 10 million rows.
  const cutoff = new Date(ANCHOR.getTime() - RETENTION_DAYS * 86_400_000)
  const [due] = await big<{ n: number; unread: number }[]>`
    select count(*) filter (where read_at is not null and delivered_at < ${cutoff})::int as n,
           count(*) filter (where read_at is null)::int as unread
      from notifications`
  const second = postgres(urlOf('cls_probe_history_big'), { max: 1, onnotice: () => {} }) as unknown as Sql
  const started = performance.now()
  let purging = true
  const purge = Promise.all([purgeReadNotifications(big, ANCHOR, RETENTION_DAYS), purgeReadNotifications(second, ANCHOR, RETENTION_DAYS)]).finally(() => (purging = false))
  const during: number[] = []
  while (purging) during.push(await rate(bigServer!, bigToken, '/notifications', 1))
  const deleted = await purge
  const seconds = (performance.now() - started) / 1000
  await second.end()
  const [after] = await big<{ n: number; unread: number }[]>`
    select count(*)::int as n, count(*) filter (where read_at is null)::int as unread from notifications`
  const [wrong] = await big<{ n: number }[]>`
    select count(*)::int as n
      from (select id from users where role = 'STUDENT' order by id limit 1000) u
      join notification_counters c on c.user_id = u.id
      cross join lateral (select count(*)::int as total, (count(*) filter (where read_at is null))::int as unread,
                                 (count(*) filter (where read_at is null and notification_type = 'HOMEWORK_REMINDER'))::int as reminders
                            from notifications n where n.user_id = u.id) a
     where (c.total, c.unread, c.unread_reminders) <> (a.total, a.unread, a.reminders)`
  const sum = deleted[0]! + deleted[1]!
  const exact = sum === due!.n && after!.n === expected - due!.n && after!.unread === due!.unread && wrong!.n === 0
  report(`retention (NOTIFICATION_RETENTION_DAYS=${RETENTION_DAYS}), two instances at once`, 'each old read row deleted once, unread kept, counters exact',
    `${sum.toLocaleString('en-US')} of ${expected.toLocaleString('en-US')} deleted in ${seconds.toFixed(1)} s (${Math.round(sum / seconds).toLocaleString('en-US')} rows/s; ` +
      `${deleted.map((d) => d.toLocaleString('en-US')).join(' + ')}); unread ${after!.unread.toLocaleString('en-US')} kept; counters of 1,000 students ${wrong!.n === 0 ? 'exact' : `${wrong!.n} wrong`}; ` +
      `inbox meanwhile ${during.length ? Math.round(during.reduce((a, b) => a + b, 0) / during.length) : '—'} req/s; load ${loadavg()[0]!.toFixed(1)}`,
    exact)
} finally {
  for (const s of servers) await s.stop()
  await big.end()
  await small.end()
}
console.log(lines.join('\n'))
