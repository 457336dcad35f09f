import { useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { get } from '../api.ts'
import type { LearningTree, Question, Task } from '../types.ts'

/** GET /experiments/mine: experiment deadlines across the caller's courses, with their own state. */
export interface MyExperiment {
  experimentId: string
  courseId: string
  courseTitle: string
  title: string
  dueAt: string
  status: 'OPEN' | 'SUBMITTED' | 'OVERDUE'
  submittedAt: string | null
  late: boolean | null
  score: number | null
  remainingSeconds: number
  submittedCount?: number
  studentCount?: number
}

export const myExperimentsKey = (courseId?: string) => ['experiments', 'mine', courseId ?? null] as const

export const useMyExperiments = (courseId?: string) =>
  useQuery({
    queryKey: myExperimentsKey(courseId),
    queryFn: () => get<{ items: MyExperiment[] }>(`/experiments/mine${courseId ? `?courseId=${encodeURIComponent(courseId)}` : ''}`).then((d) => d.items),
  })

export const allTasks = (tree: LearningTree | undefined): Task[] => tree?.units.flatMap((u) => u.points.flatMap((p) => p.tasks)) ?? []

/** Something a student hands in: homework, or a quiz (materials are only read or watched). */
export const isSubmittable = (t: Pick<Task, 'taskKind' | 'taskType'>) => t.taskKind === 'HOMEWORK' || t.taskType === 'QUIZ'

/** A question an edit added after the sheet was handed in (issue 56.5a): not asked, not counted. */
export const addedAfter = (q: Pick<Question, 'addedAt'>, submittedAt: string) => q.addedAt != null && Date.parse(q.addedAt) > Date.parse(submittedAt)

/** The current time, refreshed every `everyMs`, so "opens in …" turns into the answer form on its own. */
export function useNow(everyMs = 30_000) {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), everyMs)
    return () => clearInterval(id)
  }, [everyMs])
  return now
}
