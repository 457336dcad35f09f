import { connect } from 'node:net'

export interface RawResponse {
  status: number
  head: string
  headers: Record<string, string>
  body: string
}

/**
 * One HTTP/1.1 request written by hand on a socket: `fetch` rewrites what it dislikes (Host,
 * framing), and these tests are about exactly that.
 */
export function rawRequest(port: number, head: string, body = ''): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head + body))
    const chunks: Buffer[] = []
    socket.on('data', (d) => chunks.push(Buffer.from(d)))
    socket.on('error', reject)
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const split = text.indexOf('\r\n\r\n')
      const headText = split === -1 ? text : text.slice(0, split)
      const [statusLine, ...lines] = headText.split('\r\n')
      const headers: Record<string, string> = {}
      for (const l of lines) {
        const i = l.indexOf(':')
        if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim()
      }
      let rest = split === -1 ? '' : text.slice(split + 4)
      if (headers['transfer-encoding'] === 'chunked') rest = unchunk(rest)
      resolve({ status: Number(statusLine?.split(' ')[1] ?? 0), head: headText, headers, body: rest })
    })
  })
}

function unchunk(s: string) {
  let out = ''
  for (;;) {
    const nl = s.indexOf('\r\n')
    if (nl === -1) return out
    const size = parseInt(s.slice(0, nl), 16)
    if (!size) return out
    out += s.slice(nl + 2, nl + 2 + size)
    s = s.slice(nl + 2 + size + 2)
  }
}

/** A log that keeps its lines, to assert on what a request wrote there. */
export function capturingLog() {
  const lines: Record<string, unknown>[] = []
  const at = (level: string) => (msg: string, fields: Record<string, unknown> = {}) => lines.push({ level, msg, ...fields })
  return { lines, log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } }
}
