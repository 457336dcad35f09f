import { Elysia } from 'elysia'
import type { Deps } from '../../deps.ts'
import { onReplica } from '../../db/replica.ts'
import { authPlugin } from '../../http/auth.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { CourseParams, idParams } from '../../http/params.ts'
import { HandInTimeline, QuestionCorrectness, ScoreDistribution, TotalsDistribution } from './model.ts'
import * as service from './service.ts'

/** Charts for the course's teachers (issue 54): one endpoint per chart. */
export function analyticsRoutes(deps: Deps) {
  const { sql, clock } = deps
  const task = idParams('courseId', 'taskId')
  // Every chart reads through the replica when one is configured (issue 55).
  return new Elysia({ prefix: '/courses/:courseId/analytics', tags: ['Analytics'] })
    .use(authPlugin(deps))
    .get('/tasks/:taskId/scores', async ({ course, params, writeLsn }) => ok(await onReplica(deps, writeLsn, (db) => service.scoreDistribution(db, course.id, params.taskId, sql))), {
      course: 'teacher',
      params: task,
      response: { 200: envelope(ScoreDistribution) },
      detail: {
        summary: "A task's score distribution (histogram)",
        description: "Students of the course by their newest sheet's released score, in ten buckets of ten points; held grades (MANUAL release) count as ungraded. Material to read → 404.",
      },
    })
    .get('/tasks/:taskId/timeline', async ({ course, params, writeLsn }) => ok(await onReplica(deps, writeLsn, (db) => service.handInTimeline(db, course.id, params.taskId, clock.now(), sql))), {
      course: 'teacher',
      params: task,
      response: { 200: envelope(HandInTimeline) },
      detail: {
        summary: "A task's hand-in timeline: on time, late, missing",
        description: 'Per UTC day, the students who first handed in that day (on time or late against the current due time); the students with no hand-in are `missing` once the due time has passed, `notYet` before.',
      },
    })
    .get('/tasks/:taskId/questions', async ({ course, params, writeLsn }) => ok(await onReplica(deps, writeLsn, (db) => service.questionCorrectness(db, course.id, params.taskId, sql))), {
      course: 'teacher',
      params: task,
      response: { 200: envelope(QuestionCorrectness) },
      detail: {
        summary: "Per question of a quiz, the share correct",
        description: "Over each student's newest sheet: a choice question's share exactly right among those who answered it; a short answer's points awarded ÷ possible over the scored ones. A task without questions answers an empty list.",
      },
    })
    .get('/totals', async ({ course, writeLsn }) => ok(await onReplica(deps, writeLsn, (db) => service.totalsDistribution(db, course.id, sql))), {
      course: 'teacher',
      params: CourseParams,
      response: { 200: envelope(TotalsDistribution) },
      detail: {
        summary: "The course's distribution of totals",
        description: "Students by their average over graded work (the gradebook's average, from the per-student totals the database keeps), in ten buckets of ten points.",
      },
    })
}
