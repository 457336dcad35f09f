import postgres from 'postgres'
import { uniq } from '../support/harness.ts'
import { freePort } from '../support/processes.ts'

/**
 * A real LTI 1.3 tool: ltijs 5.9 with ltijs-sequelize on a scratch database of the local
 * PostgreSQL server (made for the file, dropped after), listening on 127.0.0.1. ltijs is one
 * Provider per process, so a test file has one tool.
 */
export const TOOL_DB_SERVER = process.env.LTI_TOOL_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

export interface Tool {
  lti: any
  origin: string
  /** The ID tokens (ltijs IdToken objects) of the launches that reached the tool. */
  launches: any[]
  /** The deep linking requests that reached the tool. */
  deepLinks: any[]
  stop(): Promise<void>
}

export async function startTool(): Promise<Tool> {
  const { Provider: lti } = require('ltijs')
  const Database = require('ltijs-sequelize')
  const admin = postgres(TOOL_DB_SERVER, { max: 1, onnotice: () => {} })
  const name = uniq('ltijs_').toLowerCase()
  await admin.unsafe(`create database ${name}`)
  const url = new URL(TOOL_DB_SERVER)
  const db = new Database(name, decodeURIComponent(url.username) || 'postgres', decodeURIComponent(url.password), {
    host: url.hostname,
    port: Number(url.port || 5432),
    dialect: 'postgres',
    logging: false,
  })
  // Dynamic registration names the tool's own URL in setup: the port is chosen first.
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  lti.setup('test-encryption-key-0123456789', { plugin: db }, {
    cookies: { secure: false, sameSite: 'Lax' },
    devMode: false,
    dynReg: { url: origin, name: 'ltijs dynamic', autoActivate: true, useDeepLinking: true },
  })
  const launches: any[] = []
  const deepLinks: any[] = []
  lti.onConnect((token: any, _req: any, res: any) => {
    launches.push(res.locals.token ?? token)
    res.send(`tool reached: ${token.user}`)
  })
  lti.onDeepLinking((token: any, _req: any, res: any) => {
    deepLinks.push(res.locals.token ?? token)
    res.send('picker')
  })
  await lti.deploy({ serverless: true, silent: true })
  const server = await new Promise<any>((resolve) => {
    const s = lti.app.listen(port, '127.0.0.1', () => resolve(s))
  })
  return {
    lti,
    origin,
    launches,
    deepLinks,
    async stop() {
      await new Promise((r) => server.close(r))
      await lti.close({ silent: true }).catch(() => {})
      await db.Close?.().catch?.(() => {})
      await admin.unsafe(`drop database if exists ${name} with (force)`)
      await admin.end()
    },
  }
}

/** A browser's cookies (one host: both the platform and the tool are on 127.0.0.1). */
export class Jar {
  private cookies = new Map<string, string>()
  set(name: string, value: string) {
    this.cookies.set(name, value)
  }
  store(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const i = pair!.indexOf('=')
      const k = pair!.slice(0, i).trim()
      const v = pair!.slice(i + 1).trim()
      if (!v || /expires=Thu, 01 Jan 1970/i.test(c)) this.cookies.delete(k)
      else this.cookies.set(k, v)
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }
}

export async function browse(jar: Jar, url: string, init: RequestInit = {}) {
  const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: jar.header() } })
  jar.store(res)
  return res
}

/** The auto-posting form of the authorization endpoint → its action and fields. */
export function formOf(html: string) {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replace(/&#38;/g, '&')
  const fields: Record<string, string> = {}
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[m[1]!] = m[2]!
  return { action: action!, fields }
}
