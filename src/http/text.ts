import { z } from 'zod'

const CONTROL = /[\u0000-\u001F\u007F]/
const CONTROL_EXCEPT_LINES = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/

/**
 * A plain-text field (not rich text): trimmed and stored as typed; clients render it as text.
 * Control characters are refused (PostgreSQL cannot store NUL, the others only disguise text);
 * `multiline` allows tabs and line breaks.
 */
export const plainText = (opts: { min: number; max: number; multiline?: boolean }) =>
  z
    .string()
    .trim()
    .min(opts.min, 'must not be empty')
    .max(opts.max, `must be at most ${opts.max} characters`)
    .refine((s) => !(opts.multiline ? CONTROL_EXCEPT_LINES : CONTROL).test(s), 'must not contain control characters')
