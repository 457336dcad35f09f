import { defineMessages } from '../i18n/index.ts'
import en from '../i18n/messages/en/roster.ts'
import zh from '../i18n/messages/zh-CN/roster.ts'

/** The `roster` namespace, registered when the class list or the leave button loads. */
export const NS = defineMessages('roster', en, zh)
