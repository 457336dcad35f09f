/**
 * The one test client: speaks the API's envelope to an app in-process (`client(app)`) or to a
 * real service process over HTTP (`httpClient(url)`, also `ServiceProcess.api`), with the same
 * calls and the same answer shape, so tests that start real processes need no client of their own.
 */
export interface Res<T = any> {
  status: number
  code: number
  message: string
  data: T
  body: any
  headers: Headers
}

export interface CallOptions {
  json?: unknown
  form?: FormData
  raw?: BodyInit
  token?: string
  cookie?: string
  headers?: Record<string, string>
}

type Transport = (url: string, init: RequestInit) => Promise<Response>

export type Client = ReturnType<typeof clientOver>

/** Speaks HTTP to the app in-process. Paths are relative to `/api/v1` unless they start with `//`. */
export function client(app: { handle(r: Request): Promise<Response> }, prefix = '/api/v1') {
  return clientOver((url, init) => app.handle(new Request(url, init)), 'http://localhost', prefix)
}

/** The same client over the network to a running service at `base` (e.g. `http://127.0.0.1:8080`). */
export function httpClient(base: string, prefix = '/api/v1') {
  return clientOver((url, init) => fetch(url, init), base.replace(/\/$/, ''), prefix)
}

function clientOver(send: Transport, origin: string, prefix: string) {
  async function call<T = any>(method: string, path: string, o: CallOptions = {}): Promise<Res<T>> {
    const headers: Record<string, string> = { ...o.headers }
    let body: BodyInit | undefined
    if (o.json !== undefined) {
      headers['content-type'] ??= 'application/json'
      body = JSON.stringify(o.json)
    } else if (o.form) body = o.form
    else if (o.raw !== undefined) body = o.raw
    if (o.token) headers.authorization = `Bearer ${o.token}`
    if (o.cookie) headers.cookie = o.cookie
    const url = path.startsWith('//') ? `${origin}${path.slice(1)}` : `${origin}${prefix}${path}`
    const res = await send(url, { method, headers, body })
    // An event stream never ends: report its status and headers, then close it.
    if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
      await res.body?.cancel()
      return { status: res.status, code: undefined, message: undefined, data: null, body: '', headers: res.headers } as unknown as Res<T>
    }
    const text = await res.text()
    let parsed: any = null
    try {
      parsed = text ? JSON.parse(text) : null
    } catch {
      parsed = text
    }
    return { status: res.status, code: parsed?.code, message: parsed?.message, data: parsed?.data, body: parsed, headers: res.headers }
  }
  return {
    call,
    get: <T = any>(p: string, o?: CallOptions) => call<T>('GET', p, o),
    post: <T = any>(p: string, o?: CallOptions) => call<T>('POST', p, o),
    put: <T = any>(p: string, o?: CallOptions) => call<T>('PUT', p, o),
    patch: <T = any>(p: string, o?: CallOptions) => call<T>('PATCH', p, o),
    del: <T = any>(p: string, o?: CallOptions) => call<T>('DELETE', p, o),
  }
}
