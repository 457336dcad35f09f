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
