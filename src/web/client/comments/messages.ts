import { defineMessages } from '../i18n/index.ts'
import en from '../i18n/messages/en/comments.ts'
import zh from '../i18n/messages/zh-CN/comments.ts'

/** The `comments` namespace: comment threads under announcements, tasks and in grading. */
export const COMMENTS = defineMessages('comments', en, zh)
