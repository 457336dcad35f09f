import { defineMessages } from '../i18n/index.ts'
import en from '../i18n/messages/en/publishing.ts'
import zh from '../i18n/messages/zh-CN/publishing.ts'

/** The `publishing` namespace: drafts, scheduled publishing, unpublishing (teacher pages). */
export const PUBLISHING = defineMessages('publishing', en, zh)
