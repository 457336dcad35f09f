import { join } from 'node:path'

/**
 * The web front end's build: Bun.build bundles the SPA in-process, once per process, on the
 * first request that needs it. Outputs stay in memory (nothing is written to disk), so
 * `bun run start` is the only command a deployment needs.
 */

export const CLIENT_DIR = join(import.meta.dir, 'client')
export const ASSET_PREFIX = '/assets/'

export interface WebAsset {
  body: Uint8Array<ArrayBuffer>
  /** Pre-compressed once at build time; served when the client accepts gzip. */
  gzip: Uint8Array<ArrayBuffer>
  type: string
}

export interface WebBundle {
  /** Hashed file name (no prefix) → content. */
  assets: Map<string, WebAsset>
  indexHtml: string
  /** `/assets/...` URLs of the entry script and the chunks it imports statically. */
  initialScripts: string[]
  builtInMs: number
}

const asset = (body: Uint8Array<ArrayBuffer>, type: string): WebAsset => ({ body, type, gzip: Bun.gzipSync(body, { level: 9 }) })

function indexHtml(entry: string, preload: string[], css: string[], icon: string) {
  const lines = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light">',
    '<title>Course Learning</title>',
    `<link rel="icon" type="image/svg+xml" href="${icon}">`,
    ...css.map((href) => `<link rel="stylesheet" href="${href}">`),
    ...preload.map((href) => `<link rel="modulepreload" href="${href}">`),
    `<script type="module" src="${entry}"></script>`,
    '</head>',
    '<body>',
    '<div id="root"></div>',
    '<noscript><p>This site needs JavaScript. Please enable it and reload the page.</p></noscript>',
    '</body>',
    '</html>',
    '',
  ]
  return lines.join('\n')
}

export async function buildWebBundle(): Promise<WebBundle> {
  const started = performance.now()
  const result = await Bun.build({
    entrypoints: [join(CLIENT_DIR, 'main.tsx')],
    target: 'browser',
    format: 'esm',
    splitting: true,
    minify: true,
    sourcemap: 'none',
    publicPath: ASSET_PREFIX,
    naming: { entry: '[name]-[hash].[ext]', chunk: 'chunk-[hash].[ext]', asset: '[name]-[hash].[ext]' },
    define: { 'process.env.NODE_ENV': '"production"' },
  })
  if (!result.success) {
    throw new Error(`web build failed:\n${result.logs.map((l) => String(l)).join('\n')}`)
  }

  const assets = new Map<string, WebAsset>()
  let entry: string | undefined
  let entryText = ''
  const css: string[] = []
  for (const out of result.outputs) {
    const name = out.path.replace(/^\.\//, '')
    const bytes = new Uint8Array(await out.arrayBuffer())
    assets.set(name, asset(bytes, out.type))
    if (out.kind === 'entry-point') {
      entry = ASSET_PREFIX + name
      entryText = await out.text()
    } else if (name.endsWith('.css')) css.push(ASSET_PREFIX + name)
  }
  if (!entry) throw new Error('web build produced no entry point')

  const iconBytes = new Uint8Array(await Bun.file(join(CLIENT_DIR, 'favicon.svg')).arrayBuffer())
  const iconName = `favicon-${Bun.hash(iconBytes).toString(36)}.svg`
  assets.set(iconName, asset(iconBytes, 'image/svg+xml'))

  // The entry imports its shared chunks statically; announcing them lets the browser fetch in parallel.
  const preload = [...new Set([...entryText.matchAll(/from\s*"(\/assets\/chunk-[a-z0-9]+\.js)"/g)].map((m) => m[1]!))]
  return {
    assets,
    indexHtml: indexHtml(entry, preload, css, ASSET_PREFIX + iconName),
    initialScripts: [entry, ...preload],
    builtInMs: Math.round(performance.now() - started),
  }
}

/**
 * Writes a bundle to a directory (`manifest.json` + `assets/<name>` and `<name>.gz`), for
 * images that build the front end once at build time (src/cli/build-web.ts, WEB_DIST_DIR).
 */
export async function writeWebBundle(bundle: WebBundle, dir: string) {
  const files: { name: string; type: string }[] = []
  for (const [name, a] of bundle.assets) {
    await Bun.write(join(dir, 'assets', name), a.body)
    await Bun.write(join(dir, 'assets', `${name}.gz`), a.gzip)
    files.push({ name, type: a.type })
  }
  const manifest = { indexHtml: bundle.indexHtml, initialScripts: bundle.initialScripts, files }
  await Bun.write(join(dir, 'manifest.json'), JSON.stringify(manifest))
}

/** Reads a bundle written by writeWebBundle. */
export async function readWebBundle(dir: string): Promise<WebBundle> {
  const started = performance.now()
  const manifest = (await Bun.file(join(dir, 'manifest.json')).json()) as {
    indexHtml: string
    initialScripts: string[]
    files: { name: string; type: string }[]
  }
  const assets = new Map<string, WebAsset>()
  for (const f of manifest.files) {
    const body = new Uint8Array(await Bun.file(join(dir, 'assets', f.name)).arrayBuffer())
    const gzip = new Uint8Array(await Bun.file(join(dir, 'assets', `${f.name}.gz`)).arrayBuffer())
    assets.set(f.name, { body, gzip, type: f.type })
  }
  return { assets, indexHtml: manifest.indexHtml, initialScripts: manifest.initialScripts, builtInMs: Math.round(performance.now() - started) }
}

/**
 * The bundle, memoised per source: `prebuiltDir` (WEB_DIST_DIR, built at image build time) or,
 * without it, this checkout's client built in-process. A process cache keyed by content, not a
 * service: every app of the process serves the same files, and tests that build many apps build
 * the front end once. A failed build is forgotten so the next request tries again.
 */
const bundles = new Map<string, Promise<WebBundle>>()

export function webBundle(prebuiltDir: string | undefined): Promise<WebBundle> {
  const key = prebuiltDir ?? ''
  let pending = bundles.get(key)
  if (!pending) {
    pending = (prebuiltDir ? readWebBundle(prebuiltDir) : buildWebBundle()).catch((e) => {
      bundles.delete(key)
      throw e
    })
    bundles.set(key, pending)
  }
  return pending
}
