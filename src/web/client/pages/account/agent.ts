import Bowser from 'bowser'
import { translate } from '../../i18n/index.ts'

/**
 * A session's User-Agent as a person reads it (issue 56.5d): "Chrome on Linux", not
 * "Mozilla/5.0 … HeadlessChrome/140…". Browsers are named by bowser; a program that is no
 * browser ("Bun/1.4.5", "curl/8.1") by its first product token.
 */
export function describeAgent(ua: string | null | undefined): string {
  if (!ua?.trim()) return translate('account:settings.unknownAgent')
  const { browser, os } = Bowser.parse(ua)
  if (browser.name) return os.name ? translate('account:settings.agentOn', { browser: browser.name, os: os.name }) : browser.name
  const product = /^([A-Za-z][\w.-]*)\/(\S+)/.exec(ua.trim())
  return product ? translate('account:settings.program', { name: product[1], version: product[2] }) : translate('account:settings.unknownAgent')
}
