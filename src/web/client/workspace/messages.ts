import { defineMessages } from '../i18n/index.ts'
import en from '../i18n/messages/en/workspace.ts'
import zh from '../i18n/messages/zh-CN/workspace.ts'

/** The `workspace` namespace: the course workspace, its tasks and the experiment page; travels in their chunks. */
export const WORKSPACE = defineMessages('workspace', en, zh)
