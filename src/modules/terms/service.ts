import type { Sql } from '../../db/connect.ts'
import { AppError } from '../../http/errors.ts'
import type { CourseAccess, CurrentUser } from '../../http/guards.ts'
import { newId } from '../../lib/ids.ts'
import type { FileStorage } from '../../storage/storage.ts'
import { randomInviteCode, type CodeGenerator } from '../courses/invite-code.ts'
import { findCourse, insertCourse } from '../courses/queries.ts'
import { getCourse } from '../courses/service.ts'
import { homeworkCopied } from '../reminders/hooks.ts'
import type { CopyCourseBody } from './model.ts'
import { copyContent, fileResourcesOf, type CopiedFile } from './queries.ts'

const CODE_ATTEMPTS = 5
/** Stored objects copied at once. */
const FILE_COPIES_IN_FLIGHT = 4

/** Copies each FILE resource's object under a new key; a missing object is left out. */
async function copyFiles(storage: FileStorage, files: { id: string; storage_key: string }[]): Promise<CopiedFile[]> {
  const copied: CopiedFile[] = []
  let next = 0
  const worker = async () => {
    while (next < files.length) {
      const f = files[next++]!
      const stored = await storage.copy(f.storage_key)
      if (stored) copied.push({ resourceId: f.id, key: stored.key })
    }
  }
  try {
    await Promise.all(Array.from({ length: Math.min(FILE_COPIES_IN_FLIGHT, files.length) }, worker))
  } catch (e) {
    await removeAll(storage, copied)
    throw e
  }
  return copied
}

const removeAll = (storage: FileStorage, files: CopiedFile[]) => Promise.all(files.map((f) => storage.remove(f.key).catch(() => {})))

/**
 * A new course owned by `user` with the source's structure, content, quizzes (with their keys),
 * homework and experiments (times moved by `shiftDays`), resources and workspace modules; no
 * people, posts or work. The files are copied first (the copies are independent of the
 * originals); the course and all its rows are then written in one transaction, and the copies
 * are removed again if it fails. Homework reminders are generated as for new homework (the new
 * course has no students yet, so there are none until students join).
 */
export async function copyCourse(
  deps: { sql: Sql; storage: FileStorage },
  source: CourseAccess,
  user: CurrentUser,
  body: CopyCourseBody,
  now: Date,
  codes: CodeGenerator = randomInviteCode,
) {
  const { sql, storage } = deps
  const original = await findCourse(sql, source.id, user.id)
  const files = await copyFiles(storage, [...(await fileResourcesOf(sql, source.id))])
  const id = newId()
  try {
    await sql.begin(async (tx) => {
      let created = false
      for (let i = 0; i < CODE_ATTEMPTS && !created; i++) {
        created = Boolean(
          await insertCourse(tx, {
            id,
            teacherId: user.id,
            title: body.title,
            description: body.description ?? original?.description ?? '',
            inviteCode: codes(),
            now,
          }),
        )
      }
      if (!created) throw new AppError('UNAVAILABLE', 'Could not allocate a unique invite code; please retry.')
      await copyContent(tx, { from: source.id, to: id, shiftDays: body.shiftDays, files, createdBy: user.id, now })
      await homeworkCopied(tx, id, now)
    })
  } catch (e) {
    await removeAll(storage, files)
    throw e
  }
  return getCourse(sql, id, user)
}
