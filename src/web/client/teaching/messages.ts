import { defineMessages } from '../i18n/index.ts'
import en from '../i18n/messages/en/teaching.ts'
import zh from '../i18n/messages/zh-CN/teaching.ts'

/** The `teaching` namespace: quiz edits, hand-in, deadlines and grade labels (teacher and student pages). */
export const TEACHING = defineMessages('teaching', en, zh)
