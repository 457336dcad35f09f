import type { ErrorName } from '../../http/errors.ts'

/** Why an import failed: the job ends FAILED with this code and message (in the catalogue, both languages). */
export class ImportFailure extends Error {
  constructor(
    readonly errorName: ErrorName,
    message: string,
  ) {
    super(message)
  }
}
