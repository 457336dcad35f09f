/**
 * `bun src/db/init-embedded.ts <dir>`: makes `<dir>` (absent or empty) a PGlite data directory
 * and exits. The service runs it as a short-lived child on a first start, so initdb's ~1 GB
 * peak is never held by the serving process; the Dockerfile runs it at build time to ship a
 * ready cluster (`EMBEDDED_TEMPLATE_DIR`), so a container's first start runs no initdb at all.
 */
import { PGlite } from '@electric-sql/pglite'
import { embeddedOptions } from './connect.ts'

const dir = process.argv[2]
if (!dir) {
  console.error('usage: bun src/db/init-embedded.ts <data directory>')
  process.exit(2)
}
const db = await PGlite.create(dir, await embeddedOptions())
await db.close()
