import { chmod, mkdir, writeFile } from 'node:fs/promises'
import { dirname, join, normalize, sep } from 'node:path'

/**
 * The embedded database's first start without initdb (issue 25). PGlite's initdb holds a second
 * PostgreSQL instance, a copy of its heap and initdb's own WASM at once: ~850-940 MB RSS for a
 * few seconds (bench/probe-initdb.ts), whatever its options (the heap cannot start below the
 * module's 128 MB; smaller shared_buffers or no JIT change it by < 10 %). So the repository
 * ships the cluster a fresh initdb makes, as PGlite dumps it (`dumpDataDir('gzip')`: 4.6 MB),
 * one file per PGlite version; a first start unpacks it (+~45 MB in the serving process for a
 * moment) and runs no initdb. Another PGlite version finds no file of its own and falls back to
 * initdb in a child process; `bun src/db/make-template.ts` makes the file for the installed one.
 */
export const TEMPLATE_DIR = join(import.meta.dir, 'template')

/** The installed PGlite's version (its package.json), which the shipped cluster must match. */
export async function pgliteVersion(): Promise<string> {
  const entry = Bun.resolveSync('@electric-sql/pglite', import.meta.dir)
  let dir = dirname(entry)
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    const pkg = Bun.file(join(dir, 'package.json'))
    if (await pkg.exists()) {
      const json = (await pkg.json()) as { name?: string; version?: string }
      if (json.name === '@electric-sql/pglite' && json.version) return json.version
    }
  }
  throw new Error('cannot find the version of @electric-sql/pglite')
}

export const shippedTemplatePath = (version: string) => join(TEMPLATE_DIR, `pgdata-pglite-${version}.tar.gz`)

/** The shipped cluster for the installed PGlite, if the repository has one. */
export async function shippedTemplate(): Promise<string | undefined> {
  const path = shippedTemplatePath(await pgliteVersion())
  return (await Bun.file(path).exists()) ? path : undefined
}

const field = (h: Uint8Array, from: number, len: number) => {
  const s = new TextDecoder().decode(h.subarray(from, from + len))
  const nul = s.indexOf('\0')
  return nul < 0 ? s : s.slice(0, nul)
}
const octal = (h: Uint8Array, from: number, len: number) => parseInt(field(h, from, len).trim() || '0', 8)

/**
 * Unpacks a gzipped tar of a data directory (regular files and directories only, as PGlite's
 * `dumpDataDir` writes them) into `dir`: files 0600, directories 0700, as PostgreSQL keeps them.
 */
export async function unpackTemplate(tarGz: string, dir: string) {
  const tar = Bun.gunzipSync(new Uint8Array(await Bun.file(tarGz).arrayBuffer()))
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const root = normalize(dir) + sep
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512)
    if (header.every((b) => b === 0)) break
    const prefix = field(header, 345, 155)
    const name = (prefix ? `${prefix}/` : '') + field(header, 0, 100)
    const size = octal(header, 124, 12)
    const type = String.fromCharCode(header[156] || 48)
    const target = normalize(join(dir, name.replace(/^\/+/, '')))
    if (!target.startsWith(root) && target !== normalize(dir)) throw new Error(`template entry outside the data directory: ${name}`)
    if (type === '5') await mkdir(target, { recursive: true, mode: 0o700 })
    else if (type === '0') {
      await mkdir(dirname(target), { recursive: true, mode: 0o700 })
      await writeFile(target, tar.subarray(at + 512, at + 512 + size), { mode: 0o600 })
      await chmod(target, 0o600)
    } else throw new Error(`unexpected entry type ${type} in the template: ${name}`)
    at += 512 + Math.ceil(size / 512) * 512
  }
}
