import type { Sql, TxSql } from '../../db/connect.ts'

const DAY_MS = 86_400_000

export type WaitReason = 'TEACHER_UNVERIFIED' | 'DAILY_LIMIT'

interface WaitingRow {
  id: string
  email: string
  created_at: Date
  has_account: boolean
}

/**
 * Queues the mails of one teacher's waiting roster invitations (sql/052), within the caps: none
 * while the teacher's own address is unverified; at most `perDay` in any 24 hours per teacher;
 * an address mailed an invitation in the last 24 hours (by anyone, for any course) is not mailed
 * again — the mail names no course, and registering enrols in every course that invited it —
 * so its invitation counts as COVERED. An address that has an account by now is not mailed (an
 * existing account is told nothing by a teacher's import). What the caps hold back stays
 * WAITING, for the job (`mailWaitingInvitations`) to send on a later day. In the caller's
 * transaction; one teacher's and one address's mails are decided one at a time on every
 * instance (a transaction advisory lock). Returns why the teacher's invitations still wait.
 */
export async function queueTeacherInvitationMails(
  tx: TxSql,
  teacherId: string,
  perDay: number,
  now: Date,
  /** The import's addresses in the list's order: of one import, the first rows are mailed first. */
  listOrder: string[] = [],
): Promise<WaitReason | null> {
  await tx`select pg_advisory_xact_lock(hashtext('roster-invitation-mail'))`
  const [teacher] = await tx<{ verified: boolean; used: number }[]>`
    select u.email_verified as verified,
           (select count(*)::int from roster_invitation_mails m
             where m.invited_by = u.id and m.queued_at > ${new Date(now.getTime() - DAY_MS)}) as used
      from users u where u.id = ${teacherId}`
  if (!teacher) return null
  const waiting = await tx<WaitingRow[]>`
    select i.id, i.email, i.created_at, exists (select 1 from users u where lower(u.email) = i.email) as has_account
      from course_invitations i
     where i.invited_by = ${teacherId} and i.mail_state = 'WAITING'
     order by i.created_at, i.id`
  if (waiting.length === 0) return null
  const position = new Map(listOrder.map((e, i) => [e, i]))
  waiting.sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (position.get(a.email) ?? listOrder.length) - (position.get(b.email) ?? listOrder.length))
  if (!teacher.verified) return 'TEACHER_UNVERIFIED'
  const emails = [...new Set(waiting.map((w) => w.email))]
  const recent = new Set(
    (
      await tx<{ email: string }[]>`
        select distinct email from roster_invitation_mails
         where email = any(${emails}::text[]) and queued_at > ${new Date(now.getTime() - DAY_MS)}`
    ).map((r) => r.email),
  )
  let budget = Math.max(0, perDay - teacher.used)
  const queued: WaitingRow[] = []
  const covered: string[] = []
  const none: string[] = []
  for (const w of waiting) {
    if (w.has_account) none.push(w.id)
    else if (recent.has(w.email)) covered.push(w.id)
    else if (budget > 0) {
      queued.push(w)
      recent.add(w.email)
      budget--
    }
  }
  await setState(tx, covered, 'COVERED', now)
  await setState(tx, none, 'NONE', now)
  if (queued.length) {
    const ids = queued.map((w) => w.id)
    await setState(tx, ids, 'QUEUED', now)
    await tx`
      insert into roster_invitation_mails (id, email, invited_by, queued_at)
      select id, email, ${teacherId}, ${now} from course_invitations where id = any(${ids}::uuid[])`
    // No user (the address has no account) and no text from the teacher: fixed text and a registration link.
    // References checked per statement by triggers, not foreign keys (src/db/dropped-foreign-keys.ts).
    await tx`
      insert into email_outbox (id, kind, user_id, to_address, locale, created_at, next_attempt_at)
      select i.id, 'ROSTER_INVITATION', null, i.email, coalesce(i.mail_locale, 'en'), ${now}, ${now}
        from course_invitations i
       where i.id = any(${ids}::uuid[])
      on conflict (id) do nothing`
  }
  return waiting.length > queued.length + covered.length + none.length ? 'DAILY_LIMIT' : null
}

async function setState(tx: TxSql, ids: string[], state: 'QUEUED' | 'COVERED' | 'NONE', now: Date) {
  if (ids.length === 0) return
  await tx`update course_invitations set mail_state = ${state}, mail_at = ${now} where id = any(${ids}::uuid[])`
}

/**
 * The job's part (src/jobs.ts): every teacher with waiting invitations and a verified address
 * gets the mails the caps allow now (a new day, or the teacher's address verified since the
 * import). Each teacher in a transaction of its own; safe on every instance at once.
 */
export async function mailWaitingInvitations(sql: Sql, perDay: number, now: Date) {
  const teachers = await sql<{ id: string }[]>`
    select distinct i.invited_by as id
      from course_invitations i join users u on u.id = i.invited_by
     where i.mail_state = 'WAITING' and u.email_verified`
  let still = 0
  for (const t of teachers) {
    if (await sql.begin((tx) => queueTeacherInvitationMails(tx, t.id, perDay, now))) still++
  }
  return { teachers: teachers.length, stillWaiting: still }
}
