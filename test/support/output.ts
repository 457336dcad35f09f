/** Collects a child process's stdout and stderr as they come; the returned function reads all so far. */
export function collectOutput(proc: { stdout: unknown; stderr: unknown }): () => string {
  let out = ''
  const drain = async (s: ReadableStream<Uint8Array>) => {
    const dec = new TextDecoder()
    const reader = s.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      out += dec.decode(value, { stream: true })
    }
  }
  void drain(proc.stdout as ReadableStream<Uint8Array>)
  void drain(proc.stderr as ReadableStream<Uint8Array>)
  return () => out
}

/** `url` pointed at 127.0.0.1:`port` (the same database and user, through a pooler or a replica started by a test). */
export function onLocalPort(url: string, port: number): string {
  const u = new URL(url)
  u.hostname = '127.0.0.1'
  u.port = String(port)
  return u.toString()
}
