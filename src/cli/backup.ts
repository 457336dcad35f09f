// Takes a backup of the embedded database now and prints its file:
//   bun run backup
// With the service running on the same DATA_DIR, the service takes it (see src/backup/on-demand.ts);
// with it stopped, this command opens the database itself. Reads the same environment as the service.
import { mkdir, readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { createBackup } from '../backup/backup.ts'
import { answerName, PID_FILE, requestName, type BackupAnswer } from '../backup/on-demand.ts'
import { ConfigError, loadConfig } from '../config.ts'
import { connectEmbedded } from '../db/connect.ts'

function fail(message: string, code = 1): never {
  console.error(message)
  process.exit(code)
}

let config
try {
  config = loadConfig()
} catch (e) {
  if (e instanceof ConfigError) fail(e.message, 2)
  throw e
}
if (config.databaseUrl) fail('DATABASE_URL is set: back up a PostgreSQL server with its own tools (pg_dump, base backups).', 2)

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}
const servicePid = Number((await readFile(join(config.dataDir, PID_FILE), 'utf8').catch(() => '')).trim())

let path: string
if (Number.isInteger(servicePid) && servicePid > 0 && servicePid !== process.pid && alive(servicePid)) {
  await mkdir(config.backupDir, { recursive: true, mode: 0o700 })
  const answerPath = join(config.backupDir, answerName(process.pid))
  await rm(answerPath, { force: true })
  const requestPath = join(config.backupDir, requestName(process.pid))
  await Bun.write(requestPath, '')
  process.kill(servicePid, 'SIGUSR2')
  const deadline = Date.now() + 30 * 60_000
  let answer: BackupAnswer | undefined
  while (!answer) {
    if (Date.now() > deadline || !alive(servicePid)) fail(`The service (pid ${servicePid}) did not answer the backup request.`)
    const read = () => readFile(answerPath, 'utf8').then((t) => JSON.parse(t) as BackupAnswer, () => undefined)
    const pending = Boolean(await stat(requestPath).catch(() => null))
    // The answer is written before the request file goes: read it after looking at the request.
    answer = await read()
    if (answer) break
    // Answered without an answer file (the disk is full): the service's log says why.
    if (!pending) fail(`Backup failed: the service (pid ${servicePid}) could not take it; see its log.`)
    await Bun.sleep(100)
  }
  await rm(answerPath, { force: true })
  if (!answer.path) fail(`Backup failed: ${answer.error}`)
  path = answer.path
} else {
  const db = await connectEmbedded(config.dataDir)
  try {
    const filesRoot = join(config.dataDir, 'files')
    const result = await createBackup({
      sql: db.sql,
      dumpDataDir: db.dumpDataDir!,
      databaseDir: db.directory,
      filesRoot: config.fileStorage === 'local' && (await stat(filesRoot).catch(() => null)) ? filesRoot : null,
      backupDir: config.backupDir,
      keep: config.backupKeep,
      now: new Date(),
    })
    path = result.path
  } catch (e) {
    await db.close().catch(() => {})
    fail(`Backup failed: ${String((e as Error)?.message ?? e)}`)
  }
  await db.close()
}
console.log(path)
