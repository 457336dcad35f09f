import type { Sql, TxSql } from '../../db/connect.ts'
import { iso, num, ok } from '../../http/envelope.ts'
import { roundScore } from '../../lib/score.ts'
import { csvRows, toCsv, type CsvValue } from './csv.ts'
import * as q from './queries.ts'
import { windowOf, type OptionalPageQuery, type RowWindow } from '../../http/pagination.ts'
import { countStudents } from '../learning/submission-queries.ts'
import { holdsAt, type CachedOverview, type OverviewCache } from '../../lib/overview-cache.ts'
import { isLate } from '../../lib/due.ts'

type ExperimentGrade = {
  experimentId: string
  title: string
  submissionId: string
  submittedAt: string
  score: number | null
  feedback: string | null
  gradedAt: string | null
}

/** The whole course (or one page of its students) in a fixed number of queries, read from the transaction's snapshot. */
async function load(tx: TxSql, courseId: string, window: RowWindow) {
  // Sent together (pipelined on the transaction's connection); a page's experiments need its students first.
  const [totals, experiments, tasks, allGrades] = await Promise.all([
    q.studentTotals(tx, courseId, window),
    q.courseExperiments(tx, courseId),
    q.gradedTasks(tx, courseId),
    window ? null : q.newestExperimentSubmissions(tx, courseId),
  ])
  const grades = allGrades ?? (await q.newestExperimentSubmissions(tx, courseId, totals.map((t) => t.user_id)))
  // The total rides on every row; only a page past the end needs counting on its own.
  const total = totals[0]?.total ?? (window && window.offset > 0 ? await countStudents(tx, courseId) : 0)
  return { totals, grades, experiments, tasks, total }
}

const SNAPSHOT = 'isolation level repeatable read read only'

export type GradeColumn = {
  id: string
  kind: 'TASK' | 'EXPERIMENT'
  taskKind: 'LEARNING' | 'HOMEWORK' | null
  taskType: 'MEDIA' | 'QUIZ' | 'LTI' | null
  title: string
  dueAt: string | null
}
export type CellStatus = 'NOT_GRADED' | 'MISSING'

export async function overview(sql: Sql, courseId: string, now: Date, paging: OptionalPageQuery = {}) {
  return sql.begin(SNAPSHOT, (tx) => build(tx, courseId, paging, now))
}

/**
 * The span of time around `now` in which no column's due time passes (see
 * `CachedOverview.after`): the MISSING cells of a build hold exactly within it.
 */
function dueSpan(columns: GradeColumn[], now: Date) {
  let after = -Infinity
  let until = Infinity
  for (const c of columns) {
    if (!c.dueAt) continue
    const due = Date.parse(c.dueAt)
    if (isLate(now, due)) after = Math.max(after, due)
    else until = Math.min(until, due)
  }
  return { after, until }
}

/**
 * A whole-course overview too large to build in memory (more than `streamAbove` students): its
 * ETag, known before any student is read, and `open` to stream the body (`streamedOverview`).
 */
export interface StreamedOverview {
  /**
   * Weak: from the course, the gradebook version (sql/030) and the due-time span read at the
   * start. The version only grows, so a body that took in a later write mid-stream is still
   * replaced at the next revalidation (the version is no longer the tagged one).
   */
  etag: string
  open(onError: (e: unknown) => void): Promise<ReadableStream<Uint8Array>>
}

/** Changes when the streamed body's format does, so an old ETag does not match a new format. */
const STREAM_FORMAT = 1

/**
 * The overview as the response body (envelope included), from `cache` when the course's
 * gradebook version (sql/030), read in the same snapshot as the data would be, is the one the
 * entry was built from; built and stored otherwise. `check` sees the data of a fresh build
 * (response validation in development and tests). The whole course of more than `streamAbove`
 * students is neither built nor cached here (issue 26: a 100,001-student body was 24.7 MB,
 * and RSS grew by 103 MB): the answer is then a `StreamedOverview`.
 */
export async function overviewBody(
  sql: Sql,
  courseId: string,
  paging: OptionalPageQuery,
  now: Date,
  cache: OverviewCache | null,
  check?: (data: unknown) => void | Promise<void>,
): Promise<CachedOverview>
export async function overviewBody(
  sql: Sql,
  courseId: string,
  paging: OptionalPageQuery,
  now: Date,
  cache: OverviewCache | null,
  check: ((data: unknown) => void | Promise<void>) | undefined,
  streamAbove: number,
  chunk?: number,
): Promise<CachedOverview | StreamedOverview>
export async function overviewBody(
  sql: Sql,
  courseId: string,
  paging: OptionalPageQuery,
  now: Date,
  cache: OverviewCache | null,
  check?: (data: unknown) => void | Promise<void>,
  streamAbove = Infinity,
  chunk = STREAM_CHUNK,
): Promise<CachedOverview | StreamedOverview> {
  const w = windowOf(paging)
  const key = `${courseId}:${w.page}:${w.pageSize}`
  type Columns = Parameters<typeof streamedOverview>[2]
  const outcome = await sql.begin(SNAPSHOT, async (tx): Promise<CachedOverview | { wait: Promise<CachedOverview> } | { head: Columns }> => {
    const { version, students } = await q.gradebookVersion(tx, courseId)
    if (!w.window && students > streamAbove) {
      const [tasks, experiments] = await Promise.all([q.gradedTasks(tx, courseId), q.courseExperiments(tx, courseId)])
      return { head: { version, tasks, experiments } }
    }
    // A hit must be of this version and of the span between due times `now` is in (a cell
    // turns MISSING as a due time passes, without any write).
    const hit = cache?.get(key, version, now.getTime())
    if (hit) return hit
    // Requests that miss the same version together (after a change) wait for one build, the
    // same version being the same data whichever snapshot builds it; they wait outside their
    // transaction, so they hold no pool connection meanwhile.
    const pending = cache?.building(key, version)
    if (pending) return { wait: pending }
    const made = (async () => {
      const { columns, students, total, page, pageSize } = await build(tx, courseId, paging, now)
      const data = { columns, students, total, page, pageSize }
      await check?.(data)
      const body = new TextEncoder().encode(JSON.stringify(ok(data)))
      return { version, body, etag: `"${Bun.hash(body).toString(36)}"`, ...dueSpan(columns, now) }
    })()
    cache?.track(key, version, made)
    const entry = await made
    cache?.set(key, entry)
    return entry
  })
  if ('head' in outcome) return streamedOverview(sql, courseId, outcome.head, now, check, chunk)
  if (!('wait' in outcome)) return outcome
  // Another request's build of the same version: right unless a due time passed in between.
  const shared = await outcome.wait
  return holdsAt(shared, now.getTime()) ? shared : overviewBody(sql, courseId, paging, now, null, check, streamAbove, chunk)
}

/**
 * The whole-course overview as a stream of bytes, the same JSON as a built one (same envelope,
 * keys and order): the columns as read with the version, then the students `chunk` at a time
 * (`studentChunks`), then `total` (the students written) and the page fields.
 */
function streamedOverview(
  sql: Sql,
  courseId: string,
  head: { version: string; tasks: TaskRows; experiments: ExperimentRows },
  now: Date,
  check: ((data: unknown) => void | Promise<void>) | undefined,
  chunk: number,
): StreamedOverview {
  const { columns } = gradebook(head.tasks, head.experiments, [], now)
  const { after, until } = dueSpan(columns, now)
  const etag = `W/"s${Bun.hash(`${STREAM_FORMAT}:${courseId}:${head.version}:${after}:${until}`).toString(36)}"`
  async function* parts() {
    let prefix = `{"code":0,"message":"OK","data":{"columns":${JSON.stringify(columns)},"students":[`
    let total = 0
    for await (const students of studentChunks(sql, courseId, head, now, chunk)) {
      await check?.({ columns, students, total: students.length, page: 1, pageSize: null })
      yield prefix + (total > 0 ? ',' : '') + JSON.stringify(students).slice(1, -1)
      prefix = ''
      total += students.length
    }
    yield `${prefix}],"total":${total},"page":1,"pageSize":null}}`
  }
  return { etag, open: (onError) => byteStream(parts(), onError) }
}

type TaskRows = Awaited<ReturnType<typeof q.gradedTasks>>
type ExperimentRows = Awaited<ReturnType<typeof q.courseExperiments>>

/** Students per chunk of a streamed CSV export or whole-course overview. */
export const STREAM_CHUNK = 2000

/**
 * The course's students in roster order, `chunk` at a time, mapped to the API's student by the
 * gradebook of `tasks` and `experiments` (read once, at the start: a column made later is left
 * out, as from the header). Each chunk is read in a short snapshot of its own (keyset on the
 * roster order), not through a cursor in one long transaction: no connection is held between
 * chunks, however slowly the client reads, so the embedded database (one connection) serves
 * other requests between them, and PostgreSQL's pool is not drained by slow downloads. One
 * chunk is read ahead while the one before is written. The price: a write committed during a
 * long export shows in the chunks read after it (each row is consistent in itself; a student
 * renamed mid-export past the current position can appear twice or not at all).
 */
async function* studentChunks(sql: Sql, courseId: string, head: { tasks: TaskRows; experiments: ExperimentRows }, now: Date, chunk: number) {
  const read = (after: q.RosterKey | null) =>
    sql.begin(SNAPSHOT, async (tx) => {
      // Near the end of the roster the planner expects few rows and starts parallel workers,
      // which cost 50 ms a chunk to launch (100,000 students: the last third took 4× as long).
      const [, rows] = await Promise.all([tx`set local max_parallel_workers_per_gather = 0`, q.studentTotalsAfter(tx, courseId, after, chunk)])
      const grades = rows.length ? await q.newestExperimentSubmissions(tx, courseId, rows.map((r) => r.user_id)) : []
      return { rows, grades }
    })
  let next = read(null)
  try {
    for (;;) {
      const { rows, grades } = await next
      if (rows.length === 0) return
      // Read ahead: the next chunk's statements run while this one is turned into text and
      // sent (two chunks' rows in memory at most).
      const full = rows.length === chunk
      if (full) {
        const last = rows[rows.length - 1]!
        next = read({ sort_name: last.sort_name, sort_username: last.sort_username, user_id: last.user_id })
      }
      const { toStudent } = gradebook(head.tasks, head.experiments, grades, now)
      yield rows.map(toStudent)
      if (!full) return
    }
  } finally {
    // Ended early (cancelled, or failed downstream): the chunk read ahead is dropped once its
    // transaction is over, so a cancel leaves no statement of this export running.
    await next.catch(() => {})
  }
}

/**
 * A pull-based stream of the UTF-8 of `parts`: the next part is made only when the reader asks
 * for more (backpressure: a slow client slows the reading of chunks, and at most one part is
 * in memory). The first part is made before the stream is handed out, so a failure at the start
 * is an ordinary error response. Cancelling (the client went away) ends `parts` after the chunk
 * under way, if any. A failure later is logged (`onError`) and errors the stream: the response,
 * its 200 already sent, is cut off without its end (Bun resets the connection before the last
 * chunk: curl exits with 56, fetch throws ECONNRESET), a failed download, never a complete one.
 */
async function byteStream(parts: AsyncGenerator<string>, onError: (e: unknown) => void): Promise<ReadableStream<Uint8Array>> {
  const utf8 = new TextEncoder()
  let first: IteratorResult<string> | null = await parts.next()
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const r = first ?? (await parts.next())
          first = null
          if (r.done) controller.close()
          else controller.enqueue(utf8.encode(r.value))
        } catch (e) {
          onError(e)
          controller.error(e)
        }
      },
      async cancel() {
        await parts.return(undefined)
      },
    },
    { highWaterMark: 0 },
  )
}

async function build(tx: TxSql, courseId: string, paging: OptionalPageQuery, now: Date) {
  const { window, page, pageSize } = windowOf(paging)
  return { ...(await buildWindow(tx, courseId, window, now)), page, pageSize }
}

async function buildWindow(tx: TxSql, courseId: string, window: RowWindow, now: Date) {
  const { totals, grades, experiments, tasks, total } = await load(tx, courseId, window)
  const { columns, toStudent } = gradebook(tasks, experiments, grades, now)
  return { columns, students: totals.map(toStudent), experiments, total }
}

/** The columns, and the mapping of one student's totals row to the API's student, for a snapshot's tasks, experiments and grades. */
function gradebook(
  tasks: TaskRows,
  experiments: ExperimentRows,
  grades: q.ExperimentGradeRow[],
  now: Date,
) {
  // Gradebook columns: homework/quizzes in course order, then experiments by due date.
  const columns: GradeColumn[] = [
    ...tasks.map((t) => ({ id: t.id, kind: 'TASK' as const, taskKind: t.task_kind, taskType: t.task_type, title: t.title, dueAt: iso(t.due_at) })),
    ...experiments.map((e) => ({ id: e.id, kind: 'EXPERIMENT' as const, taskKind: null, taskType: null, title: e.title, dueAt: iso(e.due_at) })),
  ]
  // Per column: its due time (ms, or null) and whether it has passed at `now` (src/lib/due.ts).
  const dueOf = new Map<string, number | null>([...tasks.map((t) => [t.id, t.due_at?.getTime() ?? null] as const), ...experiments.map((e) => [e.id, e.due_at.getTime()] as const)])
  const pastDue = new Set(columns.filter((c) => isLate(now, dueOf.get(c.id))).map((c) => c.id))
  // A student's experiments by due date: the position of each experiment in `experiments`.
  const experimentAt = new Map(experiments.map((e, i) => [e.id, i]))
  const byStudent = new Map<string, { at: number; grade: ExperimentGrade }[]>()
  for (const g of grades) {
    const at = experimentAt.get(g.experiment_id)
    if (at === undefined) continue
    const grade: ExperimentGrade = {
      experimentId: g.experiment_id,
      title: experiments[at]!.title,
      submissionId: g.submission_id,
      submittedAt: iso(g.submitted_at)!,
      score: num(g.score),
      feedback: g.feedback,
      gradedAt: iso(g.graded_at),
    }
    const list = byStudent.get(g.student_id)
    if (list) list.push({ at, grade })
    else byStudent.set(g.student_id, [{ at, grade }])
  }
  // Cells are sparse: a column with no score has no key (for 2,000 students and 34 columns,
  // half of them empty, the nulls were 1.6 of 4.3 MiB).
  const taskColumn = new Set(tasks.map((t) => t.id))
  const toStudent = (t: Omit<q.StudentTotalsRow, 'total'>) => {
    const graded = byStudent.get(t.user_id) ?? []
    if (graded.length > 1) graded.sort((a, b) => a.at - b.at)
    const cells: Record<string, number> = {}
    for (const taskId in t.task_scores) if (taskColumn.has(taskId)) cells[taskId] = t.task_scores[taskId]!
    for (const g of graded) if (g.grade.score !== null) cells[g.grade.experimentId] = g.grade.score
    // Why a cell has no score, and which newest submissions came after the due time: sparse,
    // as the cells (a course's cells are mostly graded or not yet due).
    const status: Record<string, CellStatus> = {}
    const late: string[] = []
    const handedIn = (id: string, at: number) => {
      if (!(id in cells)) status[id] = 'NOT_GRADED'
      if (isLate(at, dueOf.get(id))) late.push(id)
    }
    for (const c of columns) {
      if (c.kind === 'TASK') {
        const at = t.task_submitted[c.id]
        if (at != null) handedIn(c.id, at)
        else if (pastDue.has(c.id)) status[c.id] = 'MISSING'
      }
    }
    const submittedExperiments = new Set<string>()
    for (const g of graded) {
      submittedExperiments.add(g.grade.experimentId)
      handedIn(g.grade.experimentId, Date.parse(g.grade.submittedAt))
    }
    for (const e of experiments) if (!submittedExperiments.has(e.id) && pastDue.has(e.id)) status[e.id] = 'MISSING'
    return {
      userId: t.user_id,
      username: t.username,
      displayName: t.display_name,
      submissionCount: t.submission_count,
      gradedCount: t.graded_count,
      averageScore: num(t.average_score),
      experiments: graded.map((g) => g.grade),
      cells,
      status,
      late,
    }
  }
  return { columns, toStudent }
}

/**
 * The overview as a spreadsheet: one row per student; after the totals, one score column per
 * homework/quiz (course order), then two columns per experiment of the course (score of the
 * newest submission, and when it was submitted), then one status column per gradebook column
 * (`statusLabel`, at `now`). A submitted but ungraded experiment has a time
 * and an empty score; not submitted, both empty. Scores are rounded by `roundScore`, the rule
 * the grade table on screen uses, so the file and the screen agree.
 *
 * Streamed chunk by chunk of students (`studentChunks`; issue 26: a 100,000-student export built
 * in memory grew RSS by 87-164 MB): the header and columns from one snapshot at the start, then
 * the CSV text of one chunk at a time, made as the client reads. Failures: see `byteStream`.
 */
export async function overviewCsv(
  sql: Sql,
  courseId: string,
  now: Date,
  chunk = STREAM_CHUNK,
  onError: (e: unknown) => void = () => {},
): Promise<ReadableStream<Uint8Array>> {
  const head = await sql.begin(SNAPSHOT, async (tx) => {
    const [tasks, experiments, rubrics] = await Promise.all([q.gradedTasks(tx, courseId), q.courseExperiments(tx, courseId), q.courseRubrics(tx, courseId)])
    return { tasks, experiments, rubrics }
  })
  const { experiments } = head
  const { columns } = gradebook(head.tasks, experiments, [], now)
  const taskColumns = columns.filter((c) => c.kind === 'TASK')
  // Rubric columns (issue 54): per criterion of each graded item's rubric, the points of the level
  // the student's newest sheet got, in the gradebook's column order.
  const rubricOf = new Map(head.rubrics.map((r) => [r.id, r.rubric]))
  const rubricItems = [...taskColumns.map((t) => ({ id: t.id, title: t.title, lab: false })), ...experiments.map((e) => ({ id: e.id, title: e.title, lab: true }))]
    .filter((i) => rubricOf.has(i.id))
    .map((i) => ({ ...i, rubric: rubricOf.get(i.id)! }))
  const header: CsvValue[] = ['User ID', 'Username', 'Display name', 'Submissions', 'Graded', 'Average score']
  for (const t of taskColumns) header.push(`${t.title}: score`)
  for (const e of experiments) header.push(`${e.title}: score`, `${e.title}: submitted at`)
  // Added after every earlier column (issue 29.6), so files read by position keep working.
  for (const c of columns) header.push(`${c.title}: status`)
  for (const i of rubricItems) for (const c of i.rubric.criteria) header.push(`${i.title}: ${c.title} (rubric)`)
  const points = new Map(rubricItems.flatMap((i) => i.rubric.criteria.flatMap((c) => c.levels.map((l) => [l.id, l.points] as const))))
  const chosen = async (studentIds: string[]) => {
    const byPair = new Map<string, Map<string, string>>()
    if (!rubricItems.length || !studentIds.length) return byPair
    const rows = await q.newestRubricChoices(sql, rubricItems.filter((i) => !i.lab).map((i) => i.id), rubricItems.filter((i) => i.lab).map((i) => i.id), studentIds)
    for (const r of rows) byPair.set(`${r.item_id}|${r.student_id}`, new Map((r.rubric_choices ?? []).map((ch) => [ch.criterionId, ch.levelId])))
    return byPair
  }
  async function* parts() {
    // The header goes with the first chunk, so a failure reading it is an error response.
    let prefix = toCsv([header])
    for await (const students of studentChunks(sql, courseId, head, now, chunk)) {
      const rows: CsvValue[][] = []
      const levels = await chosen(students.map((s) => s.userId))
      for (const s of students) {
        const byExperiment = new Map(s.experiments.map((g) => [g.experimentId, g]))
        const row: CsvValue[] = [s.userId, s.username, s.displayName, s.submissionCount, s.gradedCount, roundScore(s.averageScore)]
        for (const t of taskColumns) row.push(roundScore(s.cells[t.id]))
        for (const e of experiments) {
          const g = byExperiment.get(e.id)
          row.push(roundScore(g?.score), g?.submittedAt)
        }
        const late = new Set(s.late)
        for (const c of columns) row.push(statusLabel(c.id in s.cells, s.status[c.id], late.has(c.id)))
        for (const i of rubricItems) {
          const picked = levels.get(`${i.id}|${s.userId}`)
          for (const c of i.rubric.criteria) {
            const level = picked?.get(c.id)
            row.push(level === undefined ? null : (points.get(level) ?? null))
          }
        }
        rows.push(row)
      }
      yield prefix + csvRows(rows)
      prefix = ''
    }
    if (prefix) yield prefix
  }
  return byteStream(parts(), onError)
}

/**
 * A cell's status in the CSV, in English like the headers: Graded, Not graded, Missing, with
 * ", late" for work handed in after the due time; empty when nothing is handed in and the
 * due time has not passed (or there is none).
 */
export function statusLabel(scored: boolean, status: CellStatus | undefined, late: boolean): string {
  const base = scored ? 'Graded' : status === 'NOT_GRADED' ? 'Not graded' : status === 'MISSING' ? 'Missing' : ''
  return late && base ? `${base}, late` : base
}

/** `grades-<course title>-<YYYY-MM-DD>.csv`, with characters file systems dislike replaced. */
export function csvFileName(courseTitle: string, now: Date) {
  const title = courseTitle.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_').trim().slice(0, 100) || 'course'
  return `grades-${title}-${now.toISOString().slice(0, 10)}.csv`
}
