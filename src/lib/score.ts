/**
 * The one rounding rule for showing scores (grade table on screen and the CSV file): one
 * decimal, half up. Stored scores have two decimals; rounding goes through whole hundredths
 * first so binary fractions cannot tip a half (90.25 → 90.3, 90.35 → 90.4, 90.24 → 90.2).
 * Pure and dependency-free: the web client imports it too.
 */
export function roundScore(score: number): number
export function roundScore(score: number | null | undefined): number | null
export function roundScore(score: number | null | undefined): number | null {
  if (score == null || !Number.isFinite(score)) return null
  const hundredths = Math.round(score * 100)
  return Math.sign(hundredths) * Math.round(Math.abs(hundredths) / 10) / 10
}
