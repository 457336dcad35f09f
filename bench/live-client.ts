/**
 * The client side of bench/live.ts, in its own process so the streams' parsing does not share
 * the server's event loop: opens one stream per token, reports "ready", then records when each
 * notification event arrives (Date.now(), same machine clock as the server's commit times).
 * Prints one JSON line with the arrivals when it gets "done" on stdin.
 */
const [url, tokenFile] = process.argv.slice(2) as [string, string]
const tokens = (await Bun.file(tokenFile).text()).trim().split('\n')
const arrivals: [string, number][] = []
let opened = 0
let failed = 0

async function open(token: string) {
  try {
    const res = await fetch(`${url}/api/v1/notifications/stream`, { headers: { authorization: `Bearer ${token}` } })
    if (res.status !== 200) {
      failed++
      return
    }
    opened++
    const reader = res.body!.getReader()
    const dec = new TextDecoder()
    let buf = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buf += dec.decode(value, { stream: true })
      let i: number
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i)
        buf = buf.slice(i + 2)
        if (block.includes('event: notification')) {
          const id = /^id: (.+)$/m.exec(block)?.[1]
          if (id) arrivals.push([id, Date.now()])
        }
      }
    }
  } catch {
    failed++
  }
}

for (let i = 0; i < tokens.length; i += 250) {
  for (const t of tokens.slice(i, i + 250)) void open(t)
  await Bun.sleep(50)
}
const deadline = Date.now() + 60_000
while (opened + failed < tokens.length && Date.now() < deadline) await Bun.sleep(50)
console.log(JSON.stringify({ ready: true, opened, failed }))

for await (const line of console) {
  if (line.trim() === 'done') break
}
console.log(JSON.stringify({ arrivals }))
process.exit(0)
export {}
