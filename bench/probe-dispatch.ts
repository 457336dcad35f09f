// Targeted dispatch timing on a seeded campus copy (not part of bun test): the bench's set-up (seedDueEvents),
// dispatch with N dispatchers, bookkeeping check, restore. PROBE_BATCH, PROBE_EVENTS, PROBE_DISPATCHERS, PROBE_REPEAT.
// PROBE_PERF=/tmp/d.perf records the dispatching backends alone with `perf record -g` while they dispatch
// (read with `perf report -i /tmp/d.perf --children --sort symbol`).
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import postgres from 'postgres'
import type { Sql } from '../src/db/connect.ts'
import { emailChannel } from '../src/modules/email/channel.ts'
import { dispatch } from '../src/modules/reminders/dispatch.ts'
import { generateForTask } from '../src/modules/reminders/queries.ts'
import { restore, seedDueEvents } from './seed.ts'

const url = process.env.DATABASE_URL!
const admin = postgres(url, { onnotice: () => {}, max: 2 }) as unknown as Sql
const [meta] = await admin<{ anchor: Date }[]>`select anchor from bench_seed order by seeded_at desc limit 1`
const anchor = meta!.anchor
const offset = anchor.getTime() - Date.now()
const now = () => new Date(Date.now() + offset)
const events = Number(process.env.PROBE_EVENTS ?? 20000)
const batch = process.env.PROBE_BATCH ? Number(process.env.PROBE_BATCH) : undefined
const dispatchers = Number(process.env.PROBE_DISPATCHERS ?? 1)
const repeat = Number(process.env.PROBE_REPEAT ?? 2)
const channels = process.env.PROBE_EMAIL === '1' ? [emailChannel] : []
const workers = process.env.PROBE_WORKERS ? Number(process.env.PROBE_WORKERS) : undefined

/**
 * PROBE_MOOC=1 (issue 26's row, the mooc shape): one homework of the course "MOOC", opened a minute
 * ago and due in a week, with a START event for each of its first `count` students; nobody has
 * submitted it, so every event is sent (10 % of the learners want it by e-mail: PROBE_EMAIL=1).
 * PROBE_GENERATE=1: the events written by the service's own statement, three per student (START due).
 */
async function seedMoocStart(count: number) {
  const t = now()
  await admin.begin(async (tx) => {
    const [task] = await tx<{ id: string }[]>`
      insert into learning_tasks (id, point_id, course_id, title, task_kind, task_type, material_type, content,
                                  start_at, due_at, sort_order, created_at)
      select gen_uuid_v7(), kp.id, kp.course_id, 'Dispatch benchmark homework', 'HOMEWORK', 'MEDIA', 'TEXT', '<p>Open now.</p>',
             ${t}::timestamptz - interval '1 minute', ${t}::timestamptz + interval '7 days', 100, ${t}
        from knowledge_points kp join learning_units lu on lu.id = kp.unit_id join courses c on c.id = kp.course_id
       where c.title = 'MOOC' and lu.sort_order = 1 and kp.sort_order = 1
      returning id`
    if (!task) throw new Error('no MOOC course: seed with BENCH_SHAPE=mooc')
    // PROBE_GENERATE=1: every student's three events as the service writes them (reminders/queries.ts,
    // in its order): START at `t` (the homework is open), BEFORE_DUE_24H and DUE ahead; `count` is ignored.
    if (process.env.PROBE_GENERATE === '1') await generateForTask(tx, task.id, t, true, true)
    else await tx`
      insert into homework_reminder_events (id, task_id, target_user_id, trigger_type, scheduled_at, created_at)
      select gen_uuid_v7(), ${task.id}, m.user_id, 'START', ${t}::timestamptz - interval '1 minute', ${t}
        from (select m.user_id from learning_tasks t join course_members m on m.course_id = t.course_id
               where t.id = ${task.id} order by m.user_id limit ${count}) m`
  })
  await admin`analyze homework_reminder_events`
  const [due] = await admin<{ n: number }[]>`
    select count(*)::int as n from homework_reminder_events where scheduled_at <= ${now()} and sent_at is null and not canceled`
  return due!.n
}

const setupDue = (count: number) => (process.env.PROBE_MOOC === '1' ? seedMoocStart(count) : seedDueEvents(admin, now, count))

/*
 * PROBE_STATIO=1: the shared-buffer misses (blocks read from the OS) and hits of each table and
 * index during the dispatch, from pg_statio_* (the dispatching backends report them as they exit).
 */
async function statio() {
  // The admin connections' own pending counters (the set-up's insert, analyze, checkpoint) are
  // flushed first: a backend reports at most once a second, so they would land in the delta.
  await Bun.sleep(1100)
  await Promise.all([admin`select pg_sleep(0.05)`, admin`select pg_sleep(0.05)`])
  await admin`select pg_stat_clear_snapshot()`
  const rows = await admin<{ name: string; read: number; hit: number }[]>`
    select relname as name, coalesce(heap_blks_read, 0)::int as read, coalesce(heap_blks_hit, 0)::int as hit from pg_statio_user_tables
    union all
    select indexrelname, coalesce(idx_blks_read, 0)::int, coalesce(idx_blks_hit, 0)::int from pg_statio_user_indexes`
  return new Map(rows.map((r) => [r.name, r]))
}
async function printStatio(before: Map<string, { read: number; hit: number }>) {
  await Bun.sleep(1100) // the exited backends' counters reach the shared statistics
  const after = await statio()
  const rows = [...after].map(([name, a]) => ({ name, read: a.read - (before.get(name)?.read ?? 0), hit: a.hit - (before.get(name)?.hit ?? 0) }))
  for (const r of rows.filter((x) => x.read + x.hit > 0).sort((x, y) => y.read - x.read)) console.log(`  ${r.name}: read ${r.read}, hit ${r.hit}`)
}

await restore(admin, anchor)
if (process.env.PROBE_SETUP_ONLY) {
  console.log('due', await setupDue(events), 'now', now().toISOString())
  await admin.end()
  process.exit(0)
}
const max = workers ?? 2
/** The dispatching connections: `dispatchers` pools of `max`, each connection opened (pids known). */
async function openPools() {
  const pools = Array.from({ length: dispatchers }, () => postgres(url, { onnotice: () => {}, max }) as unknown as Sql)
  const pids = [...new Set((await Promise.all(pools.flatMap((p) => Array.from({ length: max }, async () => (await p<{ pid: number }[]>`select pg_backend_pid() as pid, pg_sleep(0.1)`)[0]!.pid)))))]
  return { pools, pids }
}
// PROBE_WARM=1: every run on the same connections (the first run warms them: shared memory
// mapped, caches filled), as a service's pool does between scans; otherwise each run on new ones.
// With PROBE_STATIO=1 the counts then come late or not at all (warm backends do not exit).
const warmPools = process.env.PROBE_WARM === '1' ? await openPools() : null
for (let r = 0; r < repeat; r++) {
  // PROBE_VACUUM=1: each run on tables without the dead rows of the runs before (restore deletes them).
  if (process.env.PROBE_VACUUM === '1') await admin`vacuum analyze homework_reminder_events, notifications, notification_counters, email_outbox`
  const due = await setupDue(events)
  await admin`checkpoint`
  const { pools, pids } = warmPools ?? (await openPools())
  // Clock ticks of the dispatching backends: user and system time apart.
  const split = () => pids.reduce((n, pid) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return { user: n.user + Number(f[11]), sys: n.sys + Number(f[12]) } }, { user: 0, sys: 0 })
  const perf = process.env.PROBE_PERF ? Bun.spawn(['perf', 'record', '-g', '-F', '4999', '-o', process.env.PROBE_PERF, '-p', pids.join(',')], { stdout: 'ignore', stderr: 'ignore' }) : null
  if (perf) await Bun.sleep(300)
  const io0 = process.env.PROBE_STATIO === '1' ? await statio() : null
  const s0 = split()
  const t0 = s0.user + s0.sys
  const c0 = process.cpuUsage()
  const t = now()
  const [lsn0] = await admin<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`
  const started = performance.now()
  const runs = await Promise.all(pools.map((p) => dispatch(p, t, { channels, ...(batch ? { batchSize: batch } : {}), ...(workers ? { workers } : {}) })))
  const seconds = (performance.now() - started) / 1000
  // WAL written meanwhile (the whole server's; nothing else writes during a probe), per event.
  const [wal] = await admin<{ bytes: number }[]>`select pg_wal_lsn_diff(pg_current_wal_lsn(), ${lsn0!.lsn}::pg_lsn)::float8 as bytes`
  const s1 = split()
  const backendMs = (s1.user + s1.sys - t0) * 10
  const sysMs = (s1.sys - s0.sys) * 10
  if (perf) { perf.kill('SIGINT'); await perf.exited }
  const c1 = process.cpuUsage(c0)
  const bunMs = (c1.user + c1.system) / 1000
  if (!warmPools) for (const p of pools) await p.end({ timeout: 5 })
  if (io0) await printStatio(io0)
  const sent = runs.reduce((n, x) => n + x.sent, 0)
  const canceled = runs.reduce((n, x) => n + x.canceled, 0)
  if (process.env.PROBE_NOCHECK === '1') {
    console.log(`run ${r + 1}: ${dispatchers}x${workers ?? 'default'} workers: sent ${sent} + canceled ${canceled} in ${seconds.toFixed(2)} s = ${((sent + canceled) / seconds).toFixed(0)} events/s; CPU backend ${backendMs} ms (sys ${sysMs}) + bun ${bunMs.toFixed(0)} ms; WAL ${(wal!.bytes / (sent + canceled)).toFixed(0)} B/event; load ${loadavg()[0]!.toFixed(2)}`)
  } else {
  const [n] = await admin<{ notifications: number; left: number; dup: number; counters_ok: boolean }[]>`
    select (select count(*) from notifications where delivered_at > ${anchor} and notification_type = 'HOMEWORK_REMINDER')::int as notifications,
           (select count(*) from homework_reminder_events where scheduled_at <= ${t} and sent_at is null and not canceled)::int as left,
           (select count(*) from (select event_id from notifications where event_id is not null group by event_id having count(*) > 1) d)::int as dup,
           not exists (
             select 1 from notification_counters c
               full join (select user_id, count(*)::int t, (count(*) filter (where read_at is null))::int r,
                                 (count(*) filter (where read_at is null and notification_type = 'HOMEWORK_REMINDER'))::int m
                            from notifications
                           where user_id in (select target_user_id from homework_reminder_events where created_at > ${anchor})
                           group by user_id) x on x.user_id = c.user_id
              where c.user_id in (select target_user_id from homework_reminder_events where created_at > ${anchor})
                and (x.t is distinct from c.total or x.r is distinct from c.unread or x.m is distinct from c.unread_reminders)) as counters_ok`
  const [outbox] = await admin<{ n: number }[]>`select count(*)::int as n from email_outbox where created_at > ${anchor}`
  if (process.env.PROBE_EMAIL === '1') {
    // Every delivered reminder whose owner has a verified address and wants reminders by e-mail (default: on).
    const [want] = await admin<{ n: number }[]>`
      select count(*)::int as n from notifications n join users u on u.id = n.user_id and u.email_verified
       where n.delivered_at > ${anchor} and n.notification_type = 'HOMEWORK_REMINDER'
         and coalesce((select p.enabled from notification_channel_preferences p
                        where p.user_id = n.user_id and p.channel = 'email' and p.notification_type = n.notification_type), true)`
    console.log(`  outbox rows ${outbox!.n} (expected ${want!.n})${outbox!.n === want!.n ? '' : ' OUTBOX OFF'}`)
  }
  console.log(`run ${r + 1}: due ${due}, ${dispatchers} dispatcher(s), batch ${batch ?? 'default'}, workers ${workers ?? 'default'}: sent ${sent} + canceled ${canceled} in ${seconds.toFixed(2)} s = ${((sent + canceled) / seconds).toFixed(0)} events/s; CPU backend ${backendMs} ms (sys ${sysMs}) + bun ${bunMs.toFixed(0)} ms = ${(((sent + canceled) / (backendMs + bunMs)) * 1000).toFixed(0)} events per CPU-second; notifications ${n!.notifications}, left ${n!.left}, dup ${n!.dup}, counters ok ${n!.counters_ok}; load ${loadavg()[0]!.toFixed(2)}`)
  if (n!.left !== 0 || n!.notifications !== sent || sent + canceled !== due || n!.dup !== 0 || !n!.counters_ok) console.log('  BOOKKEEPING OFF')
    await admin`delete from email_outbox where created_at > ${anchor}`
  }
  await restore(admin, anchor)
}
if (warmPools) for (const p of warmPools.pools) await p.end({ timeout: 5 })
await admin.end()
