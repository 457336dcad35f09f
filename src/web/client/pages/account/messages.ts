import { defineMessages } from '../../i18n/index.ts'
import en from '../../i18n/messages/en/account.ts'
import zh from '../../i18n/messages/zh-CN/account.ts'

/** The `account` namespace (verify e-mail, forgot/reset password, banner, Settings → Account). */
export const NS = defineMessages('account', en, zh)

export interface EmailSettings {
  enabled: boolean
}
export const EMAIL_SETTINGS_KEY = ['email-settings'] as const
