/** Reads a server-sent event stream incrementally, for tests. */
export interface SseEvent {
  id?: string
  event: string
  data: any
}

export class SseReader {
  events: SseEvent[] = []
  comments: string[] = []
  closed = false
  private buf = ''
  private waiters: (() => void)[] = []
  private reader: ReadableStreamDefaultReader<Uint8Array>

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader()
    void this.pump()
  }

  private async pump() {
    const dec = new TextDecoder()
    try {
      for (;;) {
        const { value, done } = await this.reader.read()
        if (done) break
        this.buf += dec.decode(value, { stream: true })
        let i: number
        while ((i = this.buf.indexOf('\n\n')) >= 0) {
          const block = this.buf.slice(0, i)
          this.buf = this.buf.slice(i + 2)
          this.parse(block)
        }
        this.wake()
      }
    } catch {}
    this.closed = true
    this.wake()
  }

  private parse(block: string) {
    const ev: SseEvent = { event: 'message', data: '' }
    let data: string[] = []
    let any = false
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments.push(line.slice(1).trim())
        continue
      }
      const [k, ...rest] = line.split(':')
      const v = rest.join(':').replace(/^ /, '')
      if (k === 'id') ev.id = v
      else if (k === 'event') ev.event = v
      else if (k === 'data') data.push(v)
      else continue
      any = true
    }
    if (!any || data.length === 0) return
    const text = data.join('\n')
    try {
      ev.data = JSON.parse(text)
    } catch {
      ev.data = text
    }
    this.events.push(ev)
  }

  private wake() {
    const w = this.waiters
    this.waiters = []
    for (const f of w) f()
  }

  /** Waits until `pred` holds for the events read so far (or the stream closed, or timeout). */
  async until(pred: (r: SseReader) => boolean, timeoutMs = 3000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs
    while (!pred(this)) {
      const left = deadline - Date.now()
      if (left <= 0) return false
      await new Promise<void>((res) => {
        const t = setTimeout(res, Math.min(left, 100)) // woken by the next event; the timer only bounds the wait
        this.waiters.push(() => {
          clearTimeout(t)
          res()
        })
      })
    }
    return true
  }

  of(event: string) {
    return this.events.filter((e) => e.event === event)
  }

  lastCounts() {
    return this.of('counts').at(-1)?.data
  }

  async close() {
    await this.reader.cancel().catch(() => {})
  }
}
