/**
 * Builds the web front end once and writes it to a directory (default ./dist/web), so an
 * image serves it without building at run time: `bun run src/cli/build-web.ts dist/web`,
 * then run the service with WEB_DIST_DIR=dist/web (the Dockerfile does both).
 */
import { buildWebBundle, writeWebBundle } from '../web/assets.ts'

const dir = process.argv[2] ?? 'dist/web'
const bundle = await buildWebBundle()
await writeWebBundle(bundle, dir)
console.log(`web front end built into ${dir}: ${bundle.assets.size} assets in ${bundle.builtInMs} ms`)
