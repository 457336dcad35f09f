import { defineMessages } from '../i18n/index.ts'
import en from '../i18n/messages/en/manage.ts'
import zh from '../i18n/messages/zh-CN/manage.ts'

/** The `manage` namespace, registered when the management page's chunk loads. */
export const NS = defineMessages('manage', en, zh)
