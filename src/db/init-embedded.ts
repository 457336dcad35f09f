/**
 * `bun src/db/init-embedded.ts <dir>`: makes `<dir>` (absent or empty) a PGlite data directory
 * with initdb and exits (~850-940 MB peak, bench/probe-initdb.ts). A first start uses it, in a
 * short-lived child, only when neither EMBEDDED_TEMPLATE_DIR nor a cluster shipped for the
 * installed PGlite (src/db/template, made by src/db/make-template.ts) is there; the Dockerfile
 * runs it at build time for the image's EMBEDDED_TEMPLATE_DIR.
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
