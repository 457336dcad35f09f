/**
 * RFC 4180 CSV for spreadsheets: CRLF line ends, fields quoted only when they contain a quote,
 * comma or line break. Text cells that a spreadsheet would run as a formula (= + - @ tab CR,
 * and their full-width forms) get a leading apostrophe; numbers are written as numbers.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/

export type CsvValue = string | number | null | undefined

export function csvCell(value: CsvValue): string {
  if (value == null) return ''
  let s = String(value)
  if (typeof value === 'string' && FORMULA_START.test(s)) s = `'${s}`
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s
}

/** Rows as CSV lines (CRLF after each), without the byte-order mark: a later part of a file. */
export function csvRows(rows: CsvValue[][]): string {
  return rows.map((r) => r.map(csvCell).join(',') + '\r\n').join('')
}

/** UTF-8 with a byte-order mark, so spreadsheet programs detect the encoding of non-ASCII names. */
export function toCsv(rows: CsvValue[][]): string {
  return '\uFEFF' + csvRows(rows)
}
