/** Small HTTP helpers for tests against real service processes. */
export async function call(base: string, method: string, path: string, opts: { json?: unknown; token?: string; headers?: Record<string, string>; body?: BodyInit } = {}) {
  const headers: Record<string, string> = { ...opts.headers }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`
  let body = opts.body
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(opts.json)
  }
  const res = await fetch(`${base}/api/v1${path}`, { method, headers, body })
  const text = await res.text()
  let json: any = null
  try {
    json = JSON.parse(text)
  } catch {}
  return { status: res.status, headers: res.headers, json, text }
}

let n = 0
/** Registers a user of the role and logs in; returns the id and bearer token. */
export async function userWithToken(base: string, role: 'TEACHER' | 'STUDENT') {
  const name = `u${Date.now().toString(36)}${(n++).toString(36)}${Math.random().toString(36).slice(2, 6)}`
  const password = 'correct horse battery'
  const reg = await call(base, 'POST', '/auth/register', { json: { username: name, email: `${name}@example.com`, password, role } })
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${reg.text}`)
  const login = await call(base, 'POST', '/auth/login', { json: { identifier: name, password } })
  if (login.status !== 200) throw new Error(`login: ${login.status} ${login.text}`)
  return { id: reg.json.data.id as string, token: login.json.data.accessToken as string }
}

/** A teacher with a course of their own. */
export async function teacherWithCourse(base: string) {
  const teacher = await userWithToken(base, 'TEACHER')
  const course = await call(base, 'POST', '/courses', { token: teacher.token, json: { title: 'Ops course', description: 'x' } })
  if (course.status !== 201) throw new Error(`course: ${course.status} ${course.text}`)
  return { teacher, courseId: course.json.data.id as string }
}

/** Resident set size of a process in bytes (Linux /proc). */
export async function rssOf(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text()
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(status)
  if (!m) throw new Error('no VmRSS')
  return Number(m[1]) * 1024
}

/**
 * A multipart body with one FILE resource of `size` bytes, produced piece by piece (never
 * whole in this process), sent without Content-Length.
 */
export function streamedResourceForm(size: number, fileName = 'big.bin') {
  const boundary = `----cls${Math.random().toString(36).slice(2)}`
  const enc = new TextEncoder()
  const head = enc.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nBig\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\nFILE\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  )
  const tail = enc.encode(`\r\n--${boundary}--\r\n`)
  const piece = new Uint8Array(256 * 1024).fill(0x5a)
  let sent = 0
  let stage = 0
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (stage === 0) {
        c.enqueue(head)
        stage = 1
      } else if (stage === 1) {
        const n = Math.min(piece.length, size - sent)
        c.enqueue(n === piece.length ? piece : piece.subarray(0, n))
        sent += n
        if (sent >= size) stage = 2
      } else if (stage === 2) {
        c.enqueue(tail)
        stage = 3
      } else c.close()
    },
  })
  return { body, contentType: `multipart/form-data; boundary=${boundary}` }
}
