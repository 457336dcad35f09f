import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { TestContext } from '../support/harness.ts'
import { LocalDiskStorage } from '../../src/storage/local-disk.ts'

/** Every file under a directory (relative paths); [] when it does not exist yet. */
export async function filesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true })
    return entries
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
      .sort()
  } catch (e: any) {
    if (e?.code === 'ENOENT') return []
    throw e
  }
}

/** The files the test app's storage holds. */
export const storedFiles = (ctx: TestContext) => filesUnder((ctx.deps.storage as LocalDiskStorage).root)

/** Deterministic, non-text bytes (every byte value occurs), so byte-exact comparisons mean something. */
export function sampleBytes(n: number, seed = 7): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(n)
  let x = seed
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    out[i] = (x >>> 16) & 0xff
  }
  return out
}

export function formOf(fields: Record<string, string | Blob>): FormData {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  return form
}

/** A multipart body serialised to bytes, to send with an explicit Content-Length. */
export async function serialised(form: FormData): Promise<{ body: Uint8Array<ArrayBuffer>; contentType: string }> {
  const res = new Response(form)
  const contentType = res.headers.get('content-type')!
  return { body: new Uint8Array(await res.arrayBuffer()), contentType }
}

export interface Download {
  status: number
  headers: Headers
  bytes: Uint8Array<ArrayBuffer>
  json: any
}

/** GET returning the raw bytes (the harness client reads bodies as text). */
export async function download(ctx: TestContext, path: string, token?: string, headers: Record<string, string> = {}): Promise<Download> {
  const h: Record<string, string> = { ...headers }
  if (token) h.authorization = `Bearer ${token}`
  const res = await ctx.app.handle(new Request(`http://localhost/api/v1${path}`, { headers: h }))
  const bytes = new Uint8Array(await res.arrayBuffer())
  let json: any = null
  if ((res.headers.get('content-type') ?? '').includes('application/json')) json = JSON.parse(new TextDecoder().decode(bytes))
  return { status: res.status, headers: res.headers, bytes, json }
}
