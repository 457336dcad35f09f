import { z } from 'zod'

// C0 and C1 controls (ESC among them), and the bidi embedding, override and isolate controls
// (U+202A-U+202E, U+2066-U+2069) that make "Homework \u202Egpj.exe" read as "Homework exe.jpg".
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/
const CONTROL_EXCEPT_LINES = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/

/**
 * A plain-text field (not rich text): trimmed and stored as typed; clients render it as text.
 * Control characters are refused (PostgreSQL cannot store NUL, the others only disguise text),
 * C1 controls and bidi embedding/override/isolate controls too; `multiline` allows tabs and
 * line breaks. File names are not refused but cleaned (see cleanFileName in src/storage/upload.ts).
 */
export const plainText = (opts: { min: number; max: number; multiline?: boolean }) =>
  z
    .string()
    .trim()
    .min(opts.min, 'must not be empty')
    .max(opts.max, `must be at most ${opts.max} characters`)
    .refine((s) => !(opts.multiline ? CONTROL_EXCEPT_LINES : CONTROL).test(s), 'must not contain control characters')
