import { translate } from './i18n/index.ts'
import './layout/shell.ts'
import type { ModuleKey } from './types.ts'

export const MODULE_KEYS: ModuleKey[] = ['OVERVIEW', 'LEARNING', 'HOMEWORK', 'QUIZ', 'GRADES', 'EXPERIMENTS', 'RESOURCES', 'ANNOUNCEMENTS']

/** A module's name in the reader's language (read at render time, so a language switch applies). */
export const moduleLabel = (key: ModuleKey) => translate(`shell:module.${key}`)

/** `MODULE_LABELS[key]`: kept for existing callers; each read translates. */
export const MODULE_LABELS = Object.defineProperties(
  {} as Record<ModuleKey, string>,
  Object.fromEntries(MODULE_KEYS.map((k) => [k, { get: () => moduleLabel(k), enumerable: true }])),
)

/** The module's name in the workspace URL: /courses/:courseId?module=homework. */
const SLUGS: Record<ModuleKey, string> = {
  OVERVIEW: 'overview',
  LEARNING: 'learning',
  HOMEWORK: 'homework',
  QUIZ: 'quizzes',
  GRADES: 'grades',
  EXPERIMENTS: 'experiments',
  RESOURCES: 'resources',
  ANNOUNCEMENTS: 'announcements',
}
export const moduleSlug = (key: ModuleKey) => SLUGS[key]
export const moduleFromSlug = (slug: string | null): ModuleKey | null =>
  (Object.entries(SLUGS).find(([, s]) => s === slug)?.[0] as ModuleKey | undefined) ?? null

export const sectionId = (key: ModuleKey) => `section-${key.toLowerCase()}`
