import type { ModuleKey } from './types.ts'

export const MODULE_LABELS: Record<ModuleKey, string> = {
  OVERVIEW: 'Overview',
  LEARNING: 'Learning content',
  HOMEWORK: 'Homework',
  QUIZ: 'Quizzes',
  GRADES: 'Grades and feedback',
  EXPERIMENTS: 'Experiments',
  RESOURCES: 'Resources',
  ANNOUNCEMENTS: 'Announcements',
}

export const MODULE_KEYS = Object.keys(MODULE_LABELS) as ModuleKey[]

export const sectionId = (key: ModuleKey) => `section-${key.toLowerCase()}`
