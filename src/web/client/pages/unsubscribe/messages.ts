import { defineMessages } from '../../i18n/index.ts'
import en from '../../i18n/messages/en/unsubscribe.ts'
import zh from '../../i18n/messages/zh-CN/unsubscribe.ts'

/** The `unsubscribe` namespace (the page behind an e-mail's unsubscribe link). */
export const NS = defineMessages('unsubscribe', en, zh)

export const EMAIL_TYPES = Object.keys(en.types) as (keyof typeof en.types)[]
