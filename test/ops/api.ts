/** Memory probes and streamed bodies for tests against real service processes (the HTTP client is `ServiceProcess.api`). */
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

/**
 * RSS once the process has settled (after a collection, freed pages returned): sampled every
 * 100 ms until four samples in a row lie within 1 MB, or `timeoutMs` has passed (then the last).
 */
export async function settledRss(pid: number, timeoutMs = 3_000): Promise<number> {
  const deadline = Date.now() + timeoutMs
  const samples = [await rssOf(pid)]
  for (;;) {
    await new Promise((r) => setTimeout(r, 100)) // the sampling period
    samples.push(await rssOf(pid))
    const recent = samples.slice(-4)
    if ((recent.length === 4 && Math.max(...recent) - Math.min(...recent) < 1024 * 1024) || Date.now() >= deadline) return samples.at(-1)!
  }
}
