import { describe, expect, test } from 'bun:test'
import { csvCell, toCsv } from '../../src/modules/grades/csv.ts'

/**
 * Issue 17, finding 8: the formula guard for every character a spreadsheet treats as the start
 * of a formula, not only = and + (a one-character change to the guard must fail here).
 */
describe('CSV cells that a spreadsheet would run as a formula', () => {
  test.each([
    ['=', '=1+1'],
    ['+', '+1'],
    ['-', '-2+3'],
    ['@', '@SUM(A1)'],
    ['tab', '\t=cmd'],
    ['CR', '\r=cmd'],
    ['full-width =', '\uFF1DHYPERLINK("x")'],
    ['full-width +', '\uFF0B1'],
    ['full-width -', '\uFF0D1'],
    ['full-width @', '\uFF20SUM(A1)'],
  ])('%s gets a leading apostrophe', (_label, text) => {
    const cell = csvCell(text)
    const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell
    expect(unquoted).toBe(`'${text}`)
  })

  test('ordinary text and numbers are left alone; a negative number stays a number', () => {
    expect(csvCell('Alice')).toBe('Alice')
    expect(csvCell('a-b')).toBe('a-b')
    expect(csvCell(-5)).toBe('-5')
    expect(csvCell(87.5)).toBe('87.5')
    expect(toCsv([['-x', 1]])).toBe("\uFEFF'-x,1\r\n")
  })
})
