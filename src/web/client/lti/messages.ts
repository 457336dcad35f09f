import { defineMessages } from '../i18n/index.ts'
import en from '../i18n/messages/en/lti.ts'
import zh from '../i18n/messages/zh-CN/lti.ts'

/** The `lti` namespace: LTI tools of a course, LTI tasks, launching a tool (issue 52). */
export const LTI = defineMessages('lti', en, zh)
