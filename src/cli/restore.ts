// Restores a backup of the embedded database into an empty data directory:
//   bun run src/cli/restore.ts <backup.tar> <DATA_DIR>
// Then start the service with that DATA_DIR (and no DATABASE_URL).
import { restoreBackup, RestoreError } from '../backup/restore.ts'

const [backup, dataDir] = process.argv.slice(2)
if (!backup || !dataDir) {
  console.error('usage: bun run src/cli/restore.ts <backup.tar> <DATA_DIR>')
  process.exit(2)
}
try {
  const m = await restoreBackup(backup, dataDir)
  const rows = Object.values(m.rowCounts).reduce((a, b) => a + b, 0)
  console.log(`Restored the backup of ${m.createdAt} (schema ${m.schemaVersion}): ${rows} rows, ${m.files.length - 1} files, into ${dataDir}.`)
} catch (e) {
  console.error(`Restore failed: ${e instanceof RestoreError ? e.message : String(e)}`)
  process.exit(1)
}
