import { defineMessages } from '../i18n/index.ts'
import en from '../i18n/messages/en/shell.ts'
import zh from '../i18n/messages/zh-CN/shell.ts'

/** The `shell` namespace (layout, error pages, shared student-side widgets); small, ships with the first page. */
export const SHELL = defineMessages('shell', en, zh)
