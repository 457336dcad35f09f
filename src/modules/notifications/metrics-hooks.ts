/*
 * The one place this feature reports to metrics. The lead wires these to src/metrics.ts
 * (`setSseStreams(n)`, `countEmail(result)`) when merging; until then they do nothing.
 *   import { metricsHooks } from './modules/notifications/metrics-hooks.ts'
 *   metricsHooks.openStreams = setSseStreams; metricsHooks.email = countEmail
 */
export type EmailResult = 'sent' | 'retry' | 'failed'

export const metricsHooks: {
  /** Open live streams in this process, after every open and close. */
  openStreams: (n: number) => void
  /** One call per delivery attempt of an e-mail. */
  email: (result: EmailResult) => void
} = {
  openStreams: () => {},
  email: () => {},
}
