/**
 * The one closed list of error codes. Each code has one HTTP status. Feature modules throw
 * `AppError`s built from this list; `onError` (src/http/plumbing.ts) turns them into the envelope.
 * docs/api.md's error table and the OpenAPI description mirror this table (test/foundation/infra.test.ts).
 */
export const ERROR_CATALOGUE = {
  MALFORMED_REQUEST: { code: 40000, status: 400, description: 'The request could not be read (malformed JSON, bad multipart, bad id).' },
  VALIDATION_FAILED: { code: 40001, status: 400, description: 'One or more fields are invalid; `data.fields` lists them.' },
  LINK_INVALID: { code: 40002, status: 400, description: 'The e-mail link (verification, address change, password reset) is unknown, used or expired.' },
  LTI_REQUEST_INVALID: { code: 40030, status: 400, description: 'An LTI authorization request the platform refuses: missing or wrong parameters, an unregistered redirect URI, an unknown, expired or spent launch, a nonce used before.' },
  UNAUTHENTICATED: { code: 40100, status: 401, description: 'Not logged in, or the login expired or was ended.' },
  BAD_CREDENTIALS: { code: 40101, status: 401, description: 'Login failed: unknown user or wrong password.' },
  FORBIDDEN: { code: 40300, status: 403, description: 'Logged in, but not allowed (wrong role, not a member of the course).' },
  TEACHER_REGISTRATION_CLOSED: { code: 40301, status: 403, description: 'Registering as a teacher is closed on this server (TEACHER_REGISTRATION=closed).' },
  PASSWORD_LOGIN_DISABLED: { code: 40302, status: 403, description: 'Password login and registration are off on this server (PASSWORD_LOGIN=false); sign in with single sign-on.' },
  COMMENTS_OFF: { code: 40303, status: 403, description: "The course's teacher turned class comments off for students." },
  LTI_WRONG_MEMBER: { code: 40330, status: 403, description: 'The LTI launch was started by another member than the one signed in.' },
  LTI_TOOL_OPERATOR: { code: 40331, status: 403, description: 'The LTI tool was registered by the operator for every course; a teacher cannot remove it.' },
  NOT_FOUND: { code: 40400, status: 404, description: 'No such route or resource.' },
  COURSE_NOT_FOUND: { code: 40401, status: 404, description: 'Unknown course, or unknown invite code.' },
  UNIT_NOT_FOUND: { code: 40402, status: 404, description: 'Unknown learning unit in this course.' },
  POINT_NOT_FOUND: { code: 40403, status: 404, description: 'Unknown knowledge point in this course.' },
  TASK_NOT_FOUND: { code: 40404, status: 404, description: 'Unknown learning task in this course.' },
  SUBMISSION_NOT_FOUND: { code: 40405, status: 404, description: 'Unknown submission.' },
  EXPERIMENT_NOT_FOUND: { code: 40406, status: 404, description: 'Unknown experiment.' },
  RESOURCE_NOT_FOUND: { code: 40407, status: 404, description: 'Unknown course resource.' },
  NOTIFICATION_NOT_FOUND: { code: 40408, status: 404, description: 'Unknown notification (or not yours).' },
  ANNOUNCEMENT_NOT_FOUND: { code: 40409, status: 404, description: 'Unknown announcement in this course.' },
  IMPORT_NOT_FOUND: { code: 40420, status: 404, description: 'Unknown course import (or one another teacher started).' },
  COMMENT_NOT_FOUND: { code: 40410, status: 404, description: 'Unknown comment (or one you may not see).' },
  LTI_TOOL_NOT_FOUND: { code: 40430, status: 404, description: 'Unknown LTI tool in this course (or the LTI task\'s tool was removed).' },
  METHOD_NOT_ALLOWED: { code: 40500, status: 405, description: 'The route exists but not for this HTTP method; see `Allow`.' },
  CONFLICT: { code: 40900, status: 409, description: 'The request conflicts with the current state.' },
  USERNAME_TAKEN: { code: 40901, status: 409, description: 'That username is already registered.' },
  EMAIL_TAKEN: { code: 40902, status: 409, description: 'That email is already registered.' },
  JOINING_CLOSED: { code: 40903, status: 409, description: 'The course does not accept new members right now.' },
  HAS_SUBMISSIONS: { code: 40904, status: 409, description: 'Cannot delete: students have already submitted work.' },
  EMAIL_UNAVAILABLE: { code: 40905, status: 409, description: 'Password reset by e-mail is not available on this server (no SMTP_URL).' },
  ALREADY_TEACHER: { code: 40906, status: 409, description: 'That account already teaches this course.' },
  STUDENT_ACCOUNT: { code: 40907, status: 409, description: 'A student account cannot become a teacher of a course.' },
  COURSE_ARCHIVED: { code: 40908, status: 409, description: 'The course is archived and read-only; its teacher can unarchive it.' },
  TASK_TAKES_NO_ANSWERS: { code: 40909, status: 409, description: 'This learning task is reading or viewing material: it takes no answers and no grades (only homework and quizzes do).' },
  COMMENT_EDIT_CLOSED: { code: 40910, status: 409, description: 'A comment can be edited only within 15 minutes of writing it.' },
  GRADES_HELD: { code: 40940, status: 409, description: 'Grades of this task or experiment wait for release (MANUAL); release them before switching to AUTOMATIC.' },
  LTI_NOT_LTI_TASK: { code: 40930, status: 409, description: 'The learning task is not an LTI task: there is no tool to launch.' },
  LTI_SCORED_BY_TOOL: { code: 40931, status: 409, description: 'The learning task is an LTI task: its tool sends the score; students hand nothing in here.' },
  PAYLOAD_TOO_LARGE: { code: 41300, status: 413, description: 'The request body or upload is larger than allowed.' },
  IMPORT_TOO_LARGE: { code: 41320, status: 413, description: 'A course package expands to more than IMPORT_MAX_EXTRACTED_BYTES or more than 200 times its packed size (a zip bomb); a failed import\'s `error.code`.' },
  IMPORT_NOT_A_PACKAGE: { code: 42220, status: 422, description: 'The uploaded file is neither a Moodle backup nor a Common Cartridge package; a failed import\'s `error.code`.' },
  IMPORT_UNSAFE_PACKAGE: { code: 42221, status: 422, description: 'The package has an entry outside its root (zip slip) or an XML document with a DTD; a failed import\'s `error.code`.' },
  IMPORT_BROKEN_PACKAGE: { code: 42222, status: 422, description: 'The package is damaged: a required document is missing or cannot be read; a failed import\'s `error.code`.' },
  IMPORT_INTERRUPTED: { code: 50020, status: 500, description: 'The import stopped (the service was restarted three times while it ran, or an unexpected error); nothing was created; a failed import\'s `error.code`.' },
  UNSUPPORTED_MEDIA_TYPE: { code: 41500, status: 415, description: 'The Content-Type is not accepted by this endpoint.' },
  TOO_MANY_REQUESTS: { code: 42900, status: 429, description: 'Too many attempts; retry after `Retry-After` seconds.' },
  INTERNAL: { code: 50000, status: 500, description: 'Unexpected server error; quote the request id when reporting it.' },
  UNAVAILABLE: { code: 50300, status: 503, description: 'A dependency (the database) is unavailable; retry later.' },
  STORAGE_UNAVAILABLE: { code: 50301, status: 503, description: 'File storage (the S3 bucket) cannot be reached; retry after `Retry-After` seconds.' },
  STORAGE_FULL: { code: 50701, status: 507, description: 'Storage is full (the disk under DATA_DIR, for files or the embedded database); nothing was stored, retry once space is freed.' },
  RANGE_NOT_SATISFIABLE: { code: 41600, status: 416, description: 'The requested byte range lies outside the file; `Content-Range` gives its size.' },
} as const

export type ErrorName = keyof typeof ERROR_CATALOGUE

export interface FieldError {
  field: string
  message: string
}

export class AppError extends Error {
  readonly status: number
  readonly code: number
  constructor(
    readonly errorName: ErrorName,
    message: string,
    readonly data: unknown = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
    this.status = ERROR_CATALOGUE[errorName].status
    this.code = ERROR_CATALOGUE[errorName].code
  }
}

export const badRequest = (message: string, fields?: FieldError[]) =>
  new AppError(fields ? 'VALIDATION_FAILED' : 'MALFORMED_REQUEST', message, fields ? { fields } : null)

/** A validation failure on one field, shaped like schema validation failures. */
export const invalidField = (field: string, message: string) =>
  new AppError('VALIDATION_FAILED', `${field}: ${message}`, { fields: [{ field, message }] })

export const unauthenticated = (message = 'You are not logged in, or your login has expired. Please log in again.') =>
  new AppError('UNAUTHENTICATED', message)

export const forbidden = (message = 'You are not allowed to do this.') => new AppError('FORBIDDEN', message)

export const notFound = (name: ErrorName = 'NOT_FOUND', message = 'Not found.') => new AppError(name, message)

export const conflict = (name: ErrorName = 'CONFLICT', message = 'This conflicts with the current state.') =>
  new AppError(name, message)

export const tooLarge = (limitBytes: number) =>
  new AppError('PAYLOAD_TOO_LARGE', `The upload is larger than the limit of ${limitBytes} bytes.`, { limitBytes })

/** Seconds a client is told to wait before retrying an unreachable dependency. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5

/** Errno codes of a disk that is full (ENOSPC) or of a quota that is used up (EDQUOT). */
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT'])

/**
 * The disk is full: an errno from the file system, or PostgreSQL's disk_full (SQLSTATE 53100),
 * which the embedded database answers when its files cannot grow.
 */
export function isStorageFull(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code
  if (typeof code === 'string' && (FULL_CODES.has(code) || code === '53100')) return true
  // Bun's file writer and some S3 paths only say it in the message.
  return /\b(ENOSPC|EDQUOT)\b|no space left on device/i.test(String((e as { message?: unknown })?.message ?? ''))
}

export const storageFull = () => new AppError('STORAGE_FULL', 'Storage is full; nothing was stored. Please try again later.')

export const storageUnavailable = () =>
  new AppError('STORAGE_UNAVAILABLE', 'File storage cannot be reached right now; please retry shortly.', null, {
    'retry-after': String(DEPENDENCY_RETRY_AFTER_SECONDS),
  })
