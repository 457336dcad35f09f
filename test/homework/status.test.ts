import { describe, expect, test } from 'bun:test'
import { homeworkStatus, remainingSeconds } from '../../src/modules/homework/status.ts'

const start = new Date('2026-11-22T08:00:00.000Z')
const due = new Date('2026-11-25T08:00:00.000Z')
const at = (ms: number, base = start) => new Date(base.getTime() + ms)

describe('homeworkStatus', () => {
  const rows = [
    ['long before start', at(-86_400_000), null, 'NOT_STARTED'],
    ['1 ms before start', at(-1), null, 'NOT_STARTED'],
    ['exactly at start', start, null, 'IN_PROGRESS'],
    ['1 ms after start', at(1), null, 'IN_PROGRESS'],
    ['1 ms before due', at(-1, due), null, 'IN_PROGRESS'],
    ['exactly at due', due, null, 'IN_PROGRESS'],
    ['1 ms after due', at(1, due), null, 'OVERDUE'],
    ['long after due', at(86_400_000 * 30, due), null, 'OVERDUE'],
    ['submitted, before start', at(-1), at(-2), 'SUBMITTED'],
    ['submitted, in progress', at(10), at(5), 'SUBMITTED'],
    ['submitted on time, now overdue', at(1, due), at(-1, due), 'SUBMITTED'],
    ['submitted late', at(10, due), at(5, due), 'SUBMITTED'],
  ] as const
  for (const [name, now, submittedAt, expected] of rows) {
    test(`${name} → ${expected}`, () => expect(homeworkStatus(now, start, due, submittedAt)).toBe(expected))
  }
})

describe('remainingSeconds', () => {
  const rows = [
    ['a day before due', at(-86_400_000, due), 86_400],
    ['1.999 s before due (whole seconds, rounded down)', at(-1_999, due), 1],
    ['999 ms before due', at(-999, due), 0],
    ['exactly at due', due, 0],
    ['after due (never negative)', at(5_000, due), 0],
  ] as const
  for (const [name, now, expected] of rows) {
    test(`${name} → ${expected}`, () => expect(remainingSeconds(now, due)).toBe(expected))
  }
})
