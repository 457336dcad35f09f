/**
 * Load from a separate process: `wrk` (Debian's, /usr/bin/wrk) against servers started as
 * processes of their own (bench/serve.ts: the service, or the bare baseline). The in-process
 * load worker of bench/load.ts shares the server's cores and hides queueing; this does not.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const WRK = process.env.BENCH_WRK ?? '/usr/bin/wrk'

// wrk's Lua: the auth header (and body) from the environment; p50/p95/p99 in `done`
// (wrk --latency prints 50/75/90/99 only).
const LUA = `
local token = os.getenv("BENCH_TOKEN")
if token and token ~= "" then wrk.headers["Authorization"] = "Bearer " .. token end
wrk.method = os.getenv("BENCH_METHOD") or "GET"
local body = os.getenv("BENCH_BODY")
if body and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("BENCH %d %d %d %d %d %d %d %d %d\\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max,
    e.connect + e.read + e.write + e.timeout, e.status, summary.bytes))
end
`
let luaPath: string | undefined
function lua() {
  if (!luaPath) {
    luaPath = join(mkdtempSync(join(tmpdir(), 'cls-wrk-')), 'bench.lua')
    writeFileSync(luaPath, LUA)
  }
  return luaPath
}

export interface WrkResult {
  rps: number
  p50: number
  p95: number
  p99: number
  max: number
  requests: number
  /** Socket errors and non-2xx/3xx answers. */
  errors: number
  bytesPerRequest: number
}

export async function wrk(o: { url: string; token?: string; connections: number; seconds: number; threads?: number; method?: string; body?: string }): Promise<WrkResult> {
  const threads = Math.min(o.threads ?? 2, o.connections)
  const proc = Bun.spawn([WRK, `-t${threads}`, `-c${o.connections}`, `-d${o.seconds}s`, '--timeout', '10s', '-s', lua(), o.url], {
    env: { ...process.env, BENCH_TOKEN: o.token ?? '', BENCH_METHOD: o.method ?? 'GET', BENCH_BODY: o.body ?? '' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  await proc.exited
  const line = out.split('\n').find((l) => l.startsWith('BENCH '))
  if (!line) throw new Error(`wrk ${o.url}: no result\n${out}\n${err}`)
  const [requests, durationUs, p50, p95, p99, max, sockErr, statusErr, bytes] = line.split(' ').slice(1).map(Number) as number[]
  return {
    rps: requests! / (durationUs! / 1e6),
    p50: p50! / 1000,
    p95: p95! / 1000,
    p99: p99! / 1000,
    max: max! / 1000,
    requests: requests!,
    errors: sockErr! + statusErr!,
    bytesPerRequest: requests ? bytes! / requests : 0,
  }
}

export interface Server {
  mode: 'service' | 'bare'
  base: string
  pid: number
  /** Resident set size in MB (VmRSS). */
  rss(): number
  stop(): Promise<void>
}

/** Starts bench/serve.ts in its own process and waits until it listens. */
export async function startServer(mode: 'service' | 'bare', env: Record<string, string>): Promise<Server> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'serve.ts'), mode, '0'], {
    // As in the image (Dockerfile): the GC sized for a 512 MiB container, unless the caller's
    // environment says otherwise (BUN_JSC_forceRAMSize=0 measures with JavaScriptCore's default).
    env: { BUN_JSC_forceRAMSize: '536870912', ...process.env, ...env },
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const reader = proc.stdout.getReader()
  let text = ''
  const deadline = Date.now() + 30_000
  while (!/LISTENING (\d+)/.test(text)) {
    if (Date.now() > deadline) throw new Error(`${mode} did not start: ${text}`)
    const { value, done } = await reader.read()
    if (done) throw new Error(`${mode} exited: ${text}`)
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  const port = Number(/LISTENING (\d+)/.exec(text)![1])
  return {
    mode,
    base: `http://127.0.0.1:${port}/api/v1`,
    pid: proc.pid,
    rss: () => {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))
      return m ? Number(m[1]) / 1024 : NaN
    },
    async stop() {
      proc.kill()
      await proc.exited
    },
  }
}

/** Samples a server's RSS every 250 ms while `f` runs; returns f's result and the peak. */
export async function withRss<T>(server: Server, f: () => Promise<T>): Promise<{ result: T; peakRss: number }> {
  let peak = server.rss()
  const timer = setInterval(() => (peak = Math.max(peak, server.rss())), 250)
  try {
    const result = await f()
    return { result, peakRss: Math.max(peak, server.rss()) }
  } finally {
    clearInterval(timer)
  }
}
